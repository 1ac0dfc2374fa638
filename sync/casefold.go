package memsync

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/teammemd/teammemd/sync/fsio"
)

// prepareDir runs at the start of every locked operation: on the first
// run in a directory it learns whether the file system ignores case and
// its racy window (fsio.RacyWindow), and sweeps the engine's leftovers;
// later runs reuse that, and sweep again only when a run left a file
// aside.
func (s *session) prepareDir() error {
	fi, err := s.td.root.Stat(".")
	if err != nil {
		return fmt.Errorf("stat team directory: %w", err)
	}
	k := &s.known
	if k.id == nil || !os.SameFile(k.id, fi) {
		ci, err := detectCaseInsensitive(s.td.path, s.td.root)
		if err != nil {
			return err
		}
		*k = knownDir{id: fi, caseInsensitive: ci, racy: fsio.RacyWindow(s.td.root)}
	}
	s.td.caseInsensitive = k.caseInsensitive
	s.td.racy = k.racy
	if again := s.leftovers.Swap(false); !k.swept || again {
		k.swept = true
		s.sweep()
	}
	return nil
}

// detectCaseInsensitive reports whether the team directory's file system
// ignores case, creating nothing where it can: it looks up the
// directory's own name in another case in its parent, or, for a name
// with no cased letter, the nearest such ancestor's. The lookup is made
// only in a parent on the team directory's own file system (a directory
// that is a mount point is named by the file system above it). Only when
// no such name tells (or the directory's real path cannot be resolved) is
// a probe file created in the team directory. A directory with a case
// folding of its own (ext4's per-directory casefold) is seen as the
// directory looked up is.
func detectCaseInsensitive(dir string, root *os.Root) (bool, error) {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return probeCaseInsensitive(root)
	}
	self, err := os.Lstat(real)
	if err != nil {
		return false, fmt.Errorf("stat team directory: %w", err)
	}
	for p := real; filepath.Dir(p) != p; p = filepath.Dir(p) {
		parent, err := os.Lstat(filepath.Dir(p))
		if err != nil || fsio.Device(parent) != fsio.Device(self) {
			break
		}
		if ci, ok := caseTwin(p); ok {
			return ci, nil
		}
	}
	return probeCaseInsensitive(root)
}

// caseTwin looks up p's name in another case in its parent: found and the
// same file, the file system ignores case; not found, it heeds case. It
// reports false when the name has no cased letter or the lookup fails.
func caseTwin(p string) (insensitive, ok bool) {
	name := filepath.Base(p)
	other := strings.ToUpper(name)
	if other == name {
		other = strings.ToLower(name)
	}
	if other == name {
		return false, false
	}
	self, err := os.Lstat(p)
	if err != nil {
		return false, false
	}
	twin, err := os.Lstat(filepath.Join(filepath.Dir(p), other))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return false, true
	case err != nil:
		return false, false
	}
	return os.SameFile(self, twin), true
}

// probeCaseInsensitive creates a lower-case probe file in the team
// directory, looks it up in upper case and removes it.
func probeCaseInsensitive(root *os.Root) (bool, error) {
	name := probePrefix + fsio.RandomHex() + ".probe"
	f, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return false, fmt.Errorf("probe team directory case sensitivity: %w", err)
	}
	f.Close()
	defer root.Remove(name)
	_, err = root.Lstat(strings.ToUpper(name))
	return err == nil, nil
}
