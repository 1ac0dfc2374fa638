package memsync

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"runtime"
	"sort"

	"github.com/teammemd/teammemd/server/api"
)

// pull fetches the repo and applies it: server wins per key, nothing lost.
func (s *session) pull(ctx context.Context) error {
	resp, modified, err := s.client.Get(ctx, s.cfg.Repo, s.st.LastKnownChecksum)
	var ae *api.Error
	if errors.As(err, &ae) && ae.Status == http.StatusNotFound {
		s.forgetServer()
		return nil
	}
	if err != nil {
		return err
	}
	if !modified {
		s.rep.NotModified = true
		return nil
	}
	s.log.Debug("pull fetched", "entries", len(resp.Content.Entries))
	return s.applyFull(resp)
}

// applyFull reconciles the team directory with a full pull.
func (s *session) applyFull(resp api.FullResponse) error {
	local, _, err := s.td.scanLocal(s.st.Index, s.now())
	if err != nil {
		return err
	}
	s.st.Index = local
	entries := resp.Content.Entries
	keys := make([]string, 0, len(entries))
	for k := range entries {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	claimed := map[string]string{}
	if s.td.caseInsensitive {
		for k := range local {
			claimed[foldKey(k)] = k
		}
	}
	sums := make(map[string]string, len(entries))
	var writes []entryWrite
	for _, k := range keys {
		if err := api.ValidateKey(k, api.Limits{}); err != nil {
			s.rep.skip(k, "unsafe key from server: "+err.Error())
			continue
		}
		if s.skipSecretName(k) {
			continue
		}
		sums[k] = api.EntryChecksum(entries[k])
		w, ok, err := s.planEntry(k, entries[k], local, claimed)
		if err != nil {
			return err
		}
		if ok {
			writes = append(writes, w)
		}
	}
	if err := s.writeEntries(writes); err != nil {
		return err
	}
	for k := range resp.Content.DeletedEntries {
		if _, live := entries[k]; live || api.ValidateKey(k, api.Limits{}) != nil {
			continue
		}
		if err := s.applyTombstone(k, local); err != nil {
			return err
		}
	}
	s.st.ServerChecksums = sums
	s.st.Tombstones = resp.Content.DeletedEntries
	s.st.LastKnownChecksum = resp.Checksum
	return nil
}

// planEntry decides what one server entry needs: nothing (identical, or a
// local edit the push sends), a skip, or a write, which it returns.
func (s *session) planEntry(k, value string, local map[string]IndexEntry, claimed map[string]string) (entryWrite, bool, error) {
	remote := api.EntryChecksum(value)
	le, present := local[k]
	if present && le.Hash == remote {
		s.st.Base[k] = remote
		return entryWrite{}, false, nil
	}
	if reason := writeProblem(k, claimed, s.td.caseInsensitive); reason != "" {
		s.rep.skip(k, reason)
		return entryWrite{}, false, nil
	}
	base := s.st.Base[k]
	if !present {
		if base != "" && base == remote {
			return entryWrite{}, false, nil // deleted locally; the push deletes it on the server
		}
		if _, err := s.td.root.Lstat(k); err == nil {
			s.rep.skip(k, "a local file that cannot sync is in the way")
			return entryWrite{}, false, nil
		}
	}
	if present && remote == base {
		return entryWrite{}, false, nil // edited locally only; the push sends it
	}
	return entryWrite{key: k, value: value, sum: remote, base: base, present: present}, true, nil
}

// writeProblem says why key must not be written here: not synced by the
// daemon, not a valid file name on this OS, or a case twin of another key
// on a case-insensitive file system.
func writeProblem(k string, claimed map[string]string, caseInsensitive bool) string {
	if !api.IsSyncableKey(k) {
		return "not synced: hidden, or not a .md or .txt file"
	}
	if reason := fileNameProblem(k, runtime.GOOS); reason != "" {
		return "not a valid file name here: " + reason
	}
	if caseInsensitive {
		f := foldKey(k)
		if owner, ok := claimed[f]; ok && owner != k {
			return fmt.Sprintf("differs only in case from %s on a case-insensitive file system", owner)
		}
		claimed[f] = k
	}
	return ""
}

// keepLocalIfEdited saves the local file as a conflict copy when it holds
// an edit never pushed (its content differs from the last agreed version),
// reading it afresh so an edit made since the scan is kept too. It returns
// the copy, if one was made, for the caller to record.
func (s *session) keepLocalIfEdited(k, base string) (*Conflict, error) {
	data, err := s.td.read(k)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if api.EntryChecksum(string(data)) == base {
		return nil, nil
	}
	c, err := s.saveConflict(k, "local", data)
	if err != nil {
		return nil, err
	}
	return &c, nil
}

// applyTombstone deletes a local file a teammate deleted, only while it
// still holds the last version both sides agreed on.
func (s *session) applyTombstone(k string, local map[string]IndexEntry) error {
	le, present := local[k]
	base := s.st.Base[k]
	if !present {
		delete(s.st.Base, k)
		return nil
	}
	if base == "" || le.Hash != base {
		return nil // edited locally, or never agreed: keep it, the push restores it
	}
	data, err := s.td.read(k)
	if err != nil {
		return err
	}
	if api.EntryChecksum(string(data)) != base {
		return nil
	}
	if err := s.td.remove(k); err != nil {
		return err
	}
	delete(s.st.Base, k)
	delete(s.st.Index, k)
	s.rep.Deleted = append(s.rep.Deleted, k)
	return nil
}

// forgetServer records that the server has never had this repo. A repo never
// written has the empty checksum: pushing with it as If-Match fails if a
// teammate writes first.
func (s *session) forgetServer() {
	s.st.ServerChecksums = map[string]string{}
	s.st.Tombstones = nil
	s.st.LastKnownChecksum = api.EmptyRepoChecksum
}
