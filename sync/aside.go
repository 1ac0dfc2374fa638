package memsync

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"

	"github.com/teammemd/teammemd/sync/fsio"
)

// keepLocalIfEdited saves the local file as a conflict copy when it holds
// an edit never pushed (its content differs from the last agreed version),
// reading it afresh so an edit made since the scan is kept too. An edit is
// read again once no program holds the file open for writing (fsio.ReadSettled
// in dir, its directory), so an editor saving in place is never copied
// half-written; one that keeps it open fails the write with fsio.ErrStillOpen,
// and the next pull tries again. It returns the copy, if one was made, for
// the caller to record, and the checksum of the content copied.
func (s *session) keepLocalIfEdited(dir *os.Root, k, base string) (*Conflict, string, error) {
	data, err := s.td.read(k)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, "", nil
	}
	if err != nil {
		return nil, "", err
	}
	if entrySum(data) == base {
		return nil, "", nil
	}
	data, err = fsio.ReadSettled(dir, path.Base(k))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, "", nil
	}
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w; the next pull tries again", s.Show(k), err)
	}
	sum := entrySum(data)
	if sum == base {
		return nil, "", nil
	}
	c, err := s.saveConflict(k, "local", data)
	if err != nil {
		return nil, "", err
	}
	return &c, sum, nil
}

// settleAside decides what becomes of a local file of key's that the
// engine moved to the name aside in dir: content whose checksum is in
// known is removed, or kept in spares for the next write when it was read
// while no other process had it open at all (nil spares keep nothing);
// anything else (an edit) is kept as a conflict copy first. A file that a
// writer still holds open, or whose copy fails, stays where it is, and the
// next run's sweep judges it again.
func (s *session) settleAside(dir *os.Root, key, aside string, known []string, spares *fsio.Spares) (*Conflict, error) {
	data, alone, err := fsio.ReadSettledAlone(dir, aside)
	if errors.Is(err, fsio.ErrStillOpen) {
		s.leftovers.Store(true)
		s.log.Warn("file moved aside is still open for writing; judged on the next run", "key", s.Show(key))
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if slices.Contains(known, entrySum(data)) {
		if alone && spares.Keep(aside) {
			return nil, nil
		}
		return nil, dir.Remove(aside)
	}
	c, err := s.saveConflict(key, "local", data)
	if err != nil {
		s.leftovers.Store(true)
		return nil, err
	}
	return &c, dir.Remove(aside)
}
