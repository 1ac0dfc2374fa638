package memsync

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"net/http"
	"runtime"
	"slices"

	"github.com/teammemd/teammemd/internal/savetrace"
	"github.com/teammemd/teammemd/server/api"
)

// pull fetches the repo and applies it: server wins per key, nothing lost.
// It fetches the whole repo, whatever changed since, when the team
// directory was emptied (its files are written again). When the last pull
// left a change unapplied (a file it could not read, a file or directory
// in the way), a repo that has not changed since is pulled again all the
// same, for the keys that pull left unapplied (fetchUnapplied).
func (s *session) pull(ctx context.Context) error {
	s.restore = s.emptied()
	s.rebaseline()
	since := s.st.LastKnownChecksum
	if s.restore {
		since = "" // restoring: fetch it all again
	}
	savetrace.Mark("pull.get", "")
	resp, modified, err := s.fetch(ctx, since)
	if err == nil && !modified && s.st.PullAgain {
		resp, modified, err = s.fetchUnapplied(ctx)
	}
	savetrace.Mark("pull.fetched", "")
	if s.rebaseline() && since != "" {
		// The answer named a new store identity: what since stood for
		// may be gone.
		resp, modified, err = s.remote.Get(ctx, s.cfg.Repo, "")
	}
	if s.forgetIfUnknown(err) {
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
	if err := s.applyFull(resp); err != nil {
		return err
	}
	s.settleReviews()
	return nil
}

// applyFull reconciles the team directory with a full pull: deletions
// first, so they free the paths live keys need, then the writes.
func (s *session) applyFull(resp api.FullResponse) error {
	local, _, err := s.scan()
	if err != nil {
		return err
	}
	s.st.PullAgain = false
	entries := resp.Content.Entries
	deleted := s.knownDeletions(resp)
	if err := s.applyTombstones(deleted, entries, local); err != nil {
		return err
	}
	keys := s.plannedKeys(resp)
	claimed := map[string]string{}
	if s.td.caseInsensitive {
		for k := range local {
			claimed[foldKey(k)] = k
		}
	}
	sums := make(map[string]string, len(resp.Content.EntryChecksums)) // keepUnasked adds the keys not sent
	var writes []entryWrite
	for _, k := range keys {
		if err := api.ValidateKey(k, api.Limits{}); err != nil {
			s.rep.skip(k, "unsafe key from server: "+err.Error())
			continue
		}
		if s.skipSecretName(k) {
			continue
		}
		value, fetched := entries[k]
		sum := resp.Content.EntryChecksums[k]
		if fetched {
			sum = entryStringSum(value)
		}
		sums[k] = sum
		if _, isFile := local[k]; !isFile && s.dirInTheWay(k) {
			continue
		}
		w, ok, err := s.planEntry(k, value, sum, local, claimed)
		if err != nil {
			return err
		}
		if ok && !fetched {
			return fmt.Errorf("pull of %s: the answer lacks the value it needs", s.Show(k))
		}
		if ok {
			writes = append(writes, w)
		}
	}
	savetrace.Mark("pull.planned", "")
	if err := s.writeEntries(writes); err != nil {
		return err
	}
	s.keepUnasked(resp, sums)
	s.st.ServerChecksums = sums
	s.st.Tombstones = deleted
	s.st.LastKnownChecksum = resp.Checksum
	s.st.LastKnownVersion = resp.Version
	if len(s.held) > 0 {
		s.st.PullAgain = true // what the held files hold is judged once they can be read
	}
	return nil
}

// plannedKeys are the keys applyFull plans, sorted: those resp brings the
// values of and, on a case-insensitive file system, every other live key
// of resp too. There each key claims its name's fold in turn (writeProblem)
// as in a pull of the whole repo, so that a pull of some values alone
// finds the same case twins; the keys it brings no value of are agreed
// ones (fetch names every other), for which planEntry never plans a write.
func (s *session) plannedKeys(resp api.FullResponse) []string {
	entries := resp.Content.Entries
	keys := slices.Collect(maps.Keys(entries))
	if s.td.caseInsensitive {
		for k := range resp.Content.EntryChecksums {
			if _, fetched := entries[k]; !fetched {
				keys = append(keys, k)
			}
		}
	}
	slices.Sort(keys)
	return keys
}

// planEntry decides what one server entry, value with checksum remote,
// needs: nothing (identical, a local edit the push sends, or a file held
// back), a skip, or a write, which it returns. A file deleted locally is
// written again while the pull restores an emptied team directory.
func (s *session) planEntry(k, value, remote string, local map[string]IndexEntry, claimed map[string]string) (entryWrite, bool, error) {
	if s.isHeld(k) {
		return entryWrite{}, false, nil // what it holds is unknown: never overwritten
	}
	le, present := local[k]
	if present && le.Hash == remote {
		s.st.Base[k] = remote
		return entryWrite{}, false, nil
	}
	if reason, passing := writeProblem(k, claimed, s.td.caseInsensitive); reason != "" {
		s.skipEntry(k, reason, passing)
		return entryWrite{}, false, nil
	}
	base := s.st.Base[k]
	if !present {
		if base != "" && base == remote && !s.restore {
			return entryWrite{}, false, nil // deleted locally; the push deletes it on the server
		}
		if fi, err := s.td.root.Lstat(k); err == nil {
			s.skipEntry(k, inTheWay(fi), true)
			return entryWrite{}, false, nil
		}
	}
	if present && remote == base {
		return entryWrite{}, false, nil // edited locally only; the push sends it
	}
	if present && s.holdUnreadable(k, s.td.readable(k)) {
		return entryWrite{}, false, nil
	}
	return entryWrite{key: k, value: value, sum: remote, base: base, present: present}, true, nil
}

// inTheWay says why a teammate's note is not written where the local
// file fi, one that cannot sync, holds its name.
func inTheWay(fi fs.FileInfo) string {
	what := "a file here that cannot sync (too large, or not a regular file)"
	if fi.Mode()&fs.ModeSymlink != 0 {
		what = "a symlink here"
	}
	return what + " is in the way of a teammate's note of this name; it comes once that is gone"
}

// writeProblem says why key must not be written here: not synced by the
// daemon, not a valid file name on this OS, or a case twin of another key
// on a case-insensitive file system.
func writeProblem(k string, claimed map[string]string, caseInsensitive bool) (reason string, passing bool) {
	if !api.IsSyncableKey(k) {
		return "not synced: hidden, or not a .md or .txt file", false
	}
	if reason := fileNameProblem(k, runtime.GOOS); reason != "" {
		return "not a valid file name here: " + reason, false
	}
	if caseInsensitive {
		f := foldKey(k)
		if owner, ok := claimed[f]; ok && owner != k {
			return fmt.Sprintf("differs only in case from %s on a case-insensitive file system", owner), true
		}
		claimed[f] = k
	}
	return "", false
}

// skipEntry reports the server's key k as not written, for reason. When
// the reason may pass (passing: a file of the user's in the way, which
// the user may remove), the next pull fetches in full: the repo may not
// change again, and an incremental pull would never bring k.
func (s *session) skipEntry(k, reason string, passing bool) {
	s.rep.skip(k, reason)
	if passing {
		s.st.PullAgain = true
	}
}

// forgetIfUnknown reports whether err is the server's 404 for the repo,
// and then records that the server has never had it (forgetServer).
func (s *session) forgetIfUnknown(err error) bool {
	var ae *api.Error
	if !errors.As(err, &ae) || ae.Status != http.StatusNotFound {
		return false
	}
	s.forgetServer()
	return true
}

// forgetServer records that the server has never had this repo. A repo never
// written has the empty checksum: pushing with it as If-Match fails if a
// teammate writes first.
func (s *session) forgetServer() {
	s.st.ServerChecksums = map[string]string{}
	s.st.Tombstones = nil
	s.st.LastKnownChecksum = api.EmptyRepoChecksum
	s.st.LastKnownVersion = 0
}
