package memsync

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// knownDir is what an engine has learned about its team directory; it
// holds while the directory is the same one (same device and inode).
type knownDir struct {
	id              os.FileInfo
	caseInsensitive bool
	swept           bool // the first run's sweep is done
}

// prepareDir runs at the start of every locked operation: on the first
// run in a directory it learns whether the file system ignores case and
// sweeps the engine's leftovers; later runs reuse that, and sweep again
// only when a run left a file aside.
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
		*k = knownDir{id: fi, caseInsensitive: ci}
	}
	s.td.caseInsensitive = k.caseInsensitive
	if again := s.leftovers.Swap(false); !k.swept || again {
		k.swept = true
		s.sweep()
	}
	return nil
}

// detectCaseInsensitive reports whether the team directory's file system
// ignores case. It looks up the directory's own name in another case in
// its parent, which creates nothing; only a name with no cased letter
// (or a directory whose real path cannot be resolved) needs a probe file.
// A case-insensitive file system mounted on the team directory itself,
// or a directory with its own case folding, is seen as its parent's is.
func detectCaseInsensitive(dir string, root *os.Root) (bool, error) {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return probeCaseInsensitive(root)
	}
	name := filepath.Base(real)
	other := strings.ToUpper(name)
	if other == name {
		other = strings.ToLower(name)
	}
	if other == name {
		return probeCaseInsensitive(root)
	}
	self, err := os.Lstat(real)
	if err != nil {
		return false, fmt.Errorf("stat team directory: %w", err)
	}
	twin, err := os.Lstat(filepath.Join(filepath.Dir(real), other))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return probeCaseInsensitive(root)
	}
	return os.SameFile(self, twin), nil
}

// probeCaseInsensitive creates a lower-case probe file in the team
// directory, looks it up in upper case and removes it.
func probeCaseInsensitive(root *os.Root) (bool, error) {
	name := probePrefix + randomHex() + ".probe"
	f, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return false, fmt.Errorf("probe team directory case sensitivity: %w", err)
	}
	f.Close()
	defer root.Remove(name)
	_, err = root.Lstat(strings.ToUpper(name))
	return err == nil, nil
}
