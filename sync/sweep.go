package memsync

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/teammemd/teammemd/sync/fsio"
)

// probePrefix starts the name of the case-sensitivity probe file.
const probePrefix = fsio.TempPrefix + "case-"

// leftover kinds: what a file named by the engine may hold after a crash.
const (
	notLeftover = iota
	tempLeftover
	asideLeftover
)

// leftoverKind tells the engine's own file names from anything else: a
// temp file (.teammemd-<16 hex>.tmp) or probe (.teammemd-case-<16 hex>.probe)
// holds nothing of the user's; an aside file may.
func leftoverKind(name string) int {
	if rest, ok := strings.CutPrefix(name, probePrefix); ok {
		if hex, ok := strings.CutSuffix(rest, ".probe"); ok && len(hex) == 16 && fsio.IsHex(hex) {
			return tempLeftover
		}
		return notLeftover
	}
	if _, _, ok := fsio.AsideTarget(name); ok {
		return asideLeftover
	}
	if rest, ok := strings.CutPrefix(name, fsio.TempPrefix); ok {
		if hex, ok := strings.CutSuffix(rest, ".tmp"); ok && len(hex) == 16 && fsio.IsHex(hex) {
			return tempLeftover
		}
	}
	return notLeftover
}

// sweep clears what a crash left of the engine's own files: temp files and
// probes anywhere in the team directory (hidden directories aside, where
// the engine never writes) and at the top of the conflict directory are
// removed; a file moved aside is removed if it holds a known version of
// its key, and otherwise kept as a conflict copy first. Whatever cannot
// be cleared now is logged and tried on the next run.
func (s *session) sweep() {
	var found []string
	err := fs.WalkDir(s.td.root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return nil // an unreadable directory holds nothing the engine wrote
		case d.IsDir():
			if p != "." && (strings.HasPrefix(d.Name(), ".") || s.td.skips(p, true)) {
				return fs.SkipDir
			}
		case d.Type().IsRegular() && leftoverKind(d.Name()) != notLeftover:
			found = append(found, p)
		}
		return nil
	})
	if err != nil {
		s.log.Warn("sweep of the team directory failed", "err", s.shownErr(err))
	}
	for _, p := range found {
		if err := s.clearLeftover(p); err != nil {
			s.leftovers.Store(true)
			s.log.Warn("leftover kept for the next run", "path", s.Show(p), "err", s.shownErr(err))
		}
	}
	s.sweepConflictTemps()
}

// clearLeftover removes one leftover at p, judging an aside file first.
func (s *session) clearLeftover(p string) error {
	name := path.Base(p)
	if leftoverKind(name) == tempLeftover {
		s.log.Info("removed leftover temp file", "path", s.Show(p))
		return s.td.root.Remove(p)
	}
	dir, err := s.td.root.OpenRoot(path.Dir(p))
	if err != nil {
		return err
	}
	defer dir.Close()
	target, whole, _ := fsio.AsideTarget(name)
	key := path.Join(path.Dir(p), target)
	known := []string{s.st.Base[key], s.st.ServerChecksums[key]}
	data, err := s.td.read(key)
	switch {
	case err == nil:
		known = append(known, entrySum(data))
	case errors.Is(err, fs.ErrNotExist) && whole:
		// The crash came before the file was put back or deleted.
		if back, err := s.putBackLeftover(dir, name, key, known); back || err != nil {
			return err
		}
	}
	c, err := s.settleAside(dir, key, name, known, nil)
	if c != nil {
		s.recordConflict(*c)
	}
	return err
}

// putBackLeftover returns an aside file holding an edit to key's free
// name; one holding a known version is removed. It reports whether it did
// either; false leaves the file for settleAside.
func (s *session) putBackLeftover(dir *os.Root, aside, key string, known []string) (bool, error) {
	data, err := fsio.ReadSettled(dir, aside)
	if err != nil {
		return false, nil
	}
	if slices.Contains(known, entrySum(data)) {
		return true, dir.Remove(aside)
	}
	err = fsio.RenameNoReplace(dir, aside, path.Base(key))
	if errors.Is(err, fs.ErrExist) {
		return false, nil
	}
	s.log.Info("put back a file moved aside", "key", s.Show(key))
	return true, err
}

// sweepConflictTemps removes temp files a crash left at the top of the
// conflict directory.
func (s *session) sweepConflictTemps() {
	entries, err := os.ReadDir(s.conflict)
	if err != nil {
		return
	}
	for _, e := range entries {
		if e.Type().IsRegular() && leftoverKind(e.Name()) == tempLeftover {
			os.Remove(filepath.Join(s.conflict, e.Name()))
		}
	}
}
