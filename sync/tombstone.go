package memsync

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"slices"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/sync/fsio"
)

// knownDeletions returns the deletions a full pull applies and the state
// keeps: the server's markers, and the keys of the merge base that the
// server lists neither live nor deleted when the client knows them deleted.
// It does when it saw the marker before (it is in the state's Tombstones),
// or when the server's compaction horizon is past the version the state
// was synced at: the marker of a deletion since may be gone (PROTOCOL.md
// section 12). A key in the merge base was on the server at that sync, and
// a store that has not changed its identity loses a key only by deleting
// it, so no deletion is taken back and nothing else is applied as one.
func (s *session) knownDeletions(resp api.FullResponse) map[string]int64 {
	deleted := maps.Clone(resp.Content.DeletedEntries)
	if deleted == nil {
		deleted = map[string]int64{}
	}
	missed := resp.CompactedThrough > s.st.LastKnownVersion
	for k := range s.st.Base {
		_, live := resp.Content.Entries[k]
		_, marked := deleted[k]
		at, seen := s.st.Tombstones[k]
		if !live && !marked && (seen || missed) {
			deleted[k] = at
		}
	}
	return deleted
}

// applyTombstones applies the server's deletions before anything is
// written, so that the path a deleted key held is free for a live one (a
// file that became a directory, or the way back).
func (s *session) applyTombstones(deleted map[string]int64, live map[string]string, local map[string]IndexEntry) error {
	for _, k := range slices.Sorted(maps.Keys(deleted)) {
		if _, isLive := live[k]; isLive || api.ValidateKey(k, api.Limits{}) != nil {
			continue
		}
		if err := s.applyTombstone(k, local); err != nil {
			return err
		}
	}
	return nil
}

// applyTombstone deletes a local file a teammate deleted, only while it
// still holds the last version both sides agreed on.
func (s *session) applyTombstone(k string, local map[string]IndexEntry) error {
	le, present := local[k]
	base := s.st.Base[k]
	if s.isHeld(k) {
		return nil // what it holds is unknown: never deleted
	}
	if !present {
		delete(s.st.Base, k)
		return nil
	}
	if base == "" || le.Hash != base {
		return nil // edited locally, or never agreed: keep it, the push restores it
	}
	beforeReplace(k)
	gone, err := s.removeIfAgreed(k, base)
	if err != nil || !gone {
		return err
	}
	delete(s.st.Base, k)
	delete(s.st.Index, k)
	s.rep.Deleted = append(s.rep.Deleted, k)
	return nil
}

// removeIfAgreed moves key's file aside in one rename and deletes it there
// if it holds base. Anything else (a save made a moment before) is put
// back without replacing, or, when a new file has taken the name since,
// kept as a conflict copy. It reports whether the file is gone.
func (s *session) removeIfAgreed(k, base string) (bool, error) {
	dir, err := s.td.openParent(k)
	if errors.Is(err, fsio.ErrNotRegular) || errors.Is(err, fs.ErrNotExist) {
		return false, nil // its directory changed since the scan: leave it
	}
	if err != nil {
		return false, err
	}
	defer dir.Close()
	name := path.Base(k)
	aside := fsio.AsideName(name)
	if fi, err := dir.Lstat(name); err != nil || !fi.Mode().IsRegular() {
		return errors.Is(err, fs.ErrNotExist), nil
	}
	if err := dir.Rename(name, aside); err != nil {
		return errors.Is(err, fs.ErrNotExist), nil
	}
	data, err := fsio.ReadSettled(dir, aside)
	if err == nil && entrySum(data) == base {
		if err := dir.Remove(aside); err != nil {
			return false, fmt.Errorf("delete %s: %w", k, err)
		}
		return true, s.td.syncDir(path.Dir(k))
	}
	if errors.Is(err, fsio.ErrStillOpen) {
		s.st.PullAgain = true // judged on the next pull, once it is closed
		err = nil
	}
	if s.holdUnreadable(k, err) {
		err = nil
	}
	return false, errors.Join(err, s.putBack(dir, k, aside, base))
}

// putBack returns a file removeIfAgreed moved aside to its name, unless a
// new file has taken the name: then the moved one is kept as a conflict
// copy.
func (s *session) putBack(dir *os.Root, k, aside, base string) error {
	err := fsio.RenameNoReplace(dir, aside, path.Base(k))
	if !errors.Is(err, fs.ErrExist) {
		return err
	}
	c, err := s.settleAside(dir, k, aside, []string{base}, nil)
	if c != nil {
		s.recordConflict(*c)
	}
	return err
}

// dirInTheWay makes room for a live key whose path holds a directory: one
// that holds nothing but empty directories is removed; one that holds
// anything else is left, the key skipped with the reason, and the next
// pull tries again. It reports whether the key is blocked.
func (s *session) dirInTheWay(k string) bool {
	if !api.IsSyncableKey(k) || s.td.checkParents(k) != nil {
		return false
	}
	if fi, err := s.td.root.Lstat(k); err != nil || !fi.IsDir() {
		return false
	}
	err := removeEmptyTree(s.td.root, k)
	if err == nil {
		return false
	}
	s.log.Info("directory in the way of a pulled file", "key", s.Show(k), "err", s.shownErr(err))
	s.rep.skip(k, "a local directory that still holds files is in the way; the next pull tries again")
	s.st.PullAgain = true
	return true
}

// removeEmptyTree removes dir and the directories under it while none
// holds anything else; rmdir itself refuses a directory a file has just
// appeared in.
func removeEmptyTree(root *os.Root, dir string) error {
	entries, err := fs.ReadDir(root.FS(), dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !e.IsDir() {
			return fmt.Errorf("%s holds %s", dir, e.Name())
		}
		if err := removeEmptyTree(root, path.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	return root.Remove(dir)
}
