package memsync

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
)

// guardCheck runs the guards on data, key's content with checksum sum,
// or returns the verdict kept for it. A lane whose files are no memory
// notes gets none.
func (s *session) guardCheck(k, sum string, data []byte) NoteCheck {
	if !s.cfg.LaneFiles.notes() {
		return NoteCheck{}
	}
	if g, ok := s.guards[k]; ok && g.hash == sum {
		return g.check
	}
	c := CheckNote(k, data)
	if s.guards == nil {
		s.guards = map[string]guardEntry{}
	}
	s.guards[k] = guardEntry{hash: sum, check: c}
	return c
}

// holdPersonal holds k back when data, whose checksum is sum, makes it a
// personal note and the config does not share those, and reports whether
// it did.
func (s *session) holdPersonal(k, sum string, data []byte) bool {
	if s.cfg.ShareUserNotes || !s.guardCheck(k, sum, data).Personal {
		return false
	}
	s.hold(k, heldPersonal)
	return true
}

// noteWarnings reports the guards' warnings on every local file, reading
// only the files whose content the guards have not judged yet, and
// forgets the verdicts on files gone. A file whose check fails has no
// warnings; the error of the first such file in key order is returned,
// and the verdicts are then left as they are. The push runs it after its
// batches, so that a name the server's rules found a secret in shows
// redacted. They are not logged: a name the server was not sent is not
// known to hold none. The report sorts them (Report.sort).
func (s *session) noteWarnings(local map[string]IndexEntry) error {
	s.rep.Warnings = nil
	var failed string // the first file in key order whose check failed
	var ferr error
	judged := 0 // the files of local the guards keep a verdict on
	for k, e := range local {
		c, err := s.localCheck(k, e.Hash)
		if err != nil {
			if ferr == nil || k < failed {
				failed, ferr = k, err
			}
			continue
		}
		for _, w := range c.Warnings {
			s.rep.Warnings = append(s.rep.Warnings, Warning{Key: s.shownKey(k), Message: w})
		}
		if _, ok := s.guards[k]; ok {
			judged++
		}
	}
	if ferr != nil {
		return ferr
	}
	if judged < len(s.guards) { // a verdict on a file gone
		maps.DeleteFunc(s.guards, func(k string, _ guardEntry) bool { _, ok := local[k]; return !ok })
	}
	return nil
}

// shownKey is k as a warning shows it: redacted when the scanner here
// finds a secret in its name, or the server's did when it refused it.
func (s *session) shownKey(k string) string {
	if _, rk, ok := s.rejection(k); ok && rk != k {
		return rk
	}
	return s.Show(k)
}

// localCheck returns the guards' verdict on key's local file, whose
// checksum the scan found to be sum. A file that cannot be read has none,
// and neither has a file of a lane whose files are no memory notes, which
// is not read for it.
func (s *session) localCheck(k, sum string) (NoteCheck, error) {
	if !s.cfg.LaneFiles.notes() {
		return NoteCheck{}, nil
	}
	if g, ok := s.guards[k]; ok && g.hash == sum {
		return g.check, nil
	}
	data, err := s.td.read(k)
	switch {
	case errors.Is(err, fs.ErrPermission) || errors.Is(err, fs.ErrNotExist):
		return NoteCheck{}, nil
	case err != nil:
		return NoteCheck{}, fmt.Errorf("check %s: %w", s.Show(k), err)
	}
	return s.guardCheck(k, entrySum(data), data), nil
}

// Lint runs the guards on every syncable note of the team directory dir:
// their warnings, and a personal note unless shareUserNotes, as the push
// would hold it back. It reads the directory through a root, never
// following a link out of it.
func Lint(dir string, shareUserNotes bool) ([]Warning, error) {
	td, err := openTeamDir(dir)
	if err != nil {
		return nil, err
	}
	defer td.close()
	found, _, err := td.walkFrom(".")
	if err != nil {
		return nil, err
	}
	var out []Warning
	for _, f := range found {
		data, err := td.read(f.key)
		if err != nil {
			return nil, fmt.Errorf("lint %s: %w", f.key, err)
		}
		c := CheckNote(f.key, data)
		if c.Personal && !shareUserNotes {
			out = append(out, Warning{Key: f.key, Message: heldPersonal})
		}
		for _, w := range c.Warnings {
			out = append(out, Warning{Key: f.key, Message: w})
		}
	}
	return out, nil
}
