package memsync

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/teammemd/teammemd/sync/fsio"
)

// HeldPersonal is the reason a push holds back a note of type user: it
// is one person's, and belongs in their private memory, the directory
// above the team directory, which the personal lane syncs.
const HeldPersonal = heldPersonal

// ErrNotPersonalLayout is returned by PersonalTarget for a team directory
// that is not a Claude Code project's memory/team/: there is no private
// memory directory above it to move a note to.
var ErrNotPersonalLayout = errors.New("the team directory is not a Claude Code project's memory/team/ directory")

// TargetExistsError is returned by MoveToPersonal when the private memory
// already holds another file of that name. Nothing was moved.
type TargetExistsError struct{ From, To string }

func (e *TargetExistsError) Error() string {
	return fmt.Sprintf("%s was not moved: %s already exists with other content; compare the two, keep one, and remove or rename the other", e.From, e.To)
}

// KnownOnServer reports whether the saved state of repo records key on
// its server: a note a teammate shared, or one that synced before it
// became of type user. Moving it out of the team directory would delete it
// for the whole team. An empty repo checks the state of every repo.
func KnownOnServer(stateDir, repo, key string) (bool, error) {
	paths, err := filepath.Glob(filepath.Join(stateDir, "repos", "*", stateFile))
	if err != nil {
		return false, fmt.Errorf("list repo states: %w", err)
	}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return false, fmt.Errorf("read state: %w", err)
		}
		st, err := decodeState(data)
		if err != nil || (repo != "" && st.Repo != repo) {
			continue // not a state the engine would use
		}
		_, server := st.ServerChecksums[key]
		_, base := st.Base[key]
		if server || base {
			return true, nil
		}
	}
	return false, nil
}

// PrivateMemory returns the private memory directory above the team
// directory teamDir: memory/ of memory/team/.
func PrivateMemory(teamDir string) (string, error) {
	parent := filepath.Dir(filepath.Clean(teamDir))
	if filepath.Base(teamDir) != "team" || filepath.Base(parent) != "memory" {
		return "", fmt.Errorf("%s: %w", teamDir, ErrNotPersonalLayout)
	}
	return parent, nil
}

// PersonalTarget returns where key of team directory teamDir goes in the
// private memory: memory/team/X.md becomes memory/X.md.
func PersonalTarget(teamDir, key string) (string, error) {
	parent, err := PrivateMemory(teamDir)
	if err != nil {
		return "", err
	}
	return filepath.Join(parent, filepath.FromSlash(key)), nil
}

// MoveToPersonal moves the note key, of type user, from the team directory
// teamDir to the private memory above it, and returns its new path. The
// move is one rename that never replaces a file: the note is in exactly one
// of the two places at every instant. A target that exists with other
// content is refused (TargetExistsError); one with the same content is
// kept and the team copy dropped. A note no longer of type user by the
// time it moved is moved back.
func MoveToPersonal(teamDir, key string) (string, error) {
	return moveToPersonal(teamDir, key, nil)
}

// moveToPersonal is MoveToPersonal; beforeRename, when set, runs between
// the check of the note and its rename.
func moveToPersonal(teamDir, key string, beforeRename func()) (string, error) {
	target, err := PersonalTarget(teamDir, key)
	if err != nil {
		return "", err
	}
	if err := CheckNoteKey(key); err != nil {
		return "", err
	}
	root, err := os.OpenRoot(filepath.Dir(filepath.Clean(teamDir)))
	if err != nil {
		return "", fmt.Errorf("open the private memory directory: %w", err)
	}
	defer root.Close()
	m := personalMove{root: root, from: "team/" + key, to: key, shownFrom: filepath.Join(teamDir, filepath.FromSlash(key)), shownTo: target}
	if err := m.run(beforeRename); err != nil {
		return "", err
	}
	return target, nil
}

// personalMove is one note's move within the memory directory root.
type personalMove struct {
	root               *os.Root
	from, to           string // relative to root, slash-separated
	shownFrom, shownTo string
}

func (m personalMove) run(beforeRename func()) error {
	if err := m.checkDirs(); err != nil {
		return err
	}
	data, err := m.root.ReadFile(m.from)
	if err != nil {
		return fmt.Errorf("read %s: %w", m.shownFrom, err)
	}
	if !CheckNote(m.to, data).Personal {
		return fmt.Errorf("%s is not a note of type user: it stays in the team directory", m.shownFrom)
	}
	if dir := path.Dir(m.to); dir != "." {
		if err := m.root.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("create the directory of %s: %w", m.shownTo, err)
		}
	}
	if beforeRename != nil {
		beforeRename()
	}
	err = fsio.RenameNoReplace(m.root, m.from, m.to)
	switch {
	case errors.Is(err, fs.ErrExist):
		return m.dropDuplicate()
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s was removed before it could be moved; nothing was moved", m.shownFrom)
	case err != nil:
		return fmt.Errorf("move %s to %s: %w", m.shownFrom, m.shownTo, err)
	}
	return m.confirm()
}

// checkDirs refuses a team directory, or a directory of the note's path in
// it, that is a link: the rename would follow it out of the memory
// directory.
func (m personalMove) checkDirs() error {
	parts := strings.Split(m.from, "/")
	for i := 1; i < len(parts); i++ {
		p := strings.Join(parts[:i], "/")
		fi, err := m.root.Lstat(p)
		if err != nil {
			return fmt.Errorf("check %s: %w", p, err)
		}
		if !fi.IsDir() {
			return fmt.Errorf("%s is not a plain directory (%s): nothing was moved", p, fi.Mode().Type())
		}
	}
	return nil
}

// confirm reads the note at its new place: one edited between the check
// and the rename so that it is no longer of type user goes back to the
// team directory, unless a file took its name there meanwhile.
func (m personalMove) confirm() error {
	data, err := m.root.ReadFile(m.to)
	if err != nil {
		return fmt.Errorf("read %s after the move: %w", m.shownTo, err)
	}
	if CheckNote(m.to, data).Personal {
		return nil
	}
	if err := fsio.RenameNoReplace(m.root, m.to, m.from); err != nil {
		return fmt.Errorf("%s changed while it was moved and is no longer of type user, but could not go back (%w); it is at %s", m.shownFrom, err, m.shownTo)
	}
	return fmt.Errorf("%s changed while it was moved and is no longer of type user: it stays in the team directory", m.shownFrom)
}

// dropDuplicate handles a target that exists: when it holds exactly what
// the team copy holds, the team copy is taken aside, compared once more
// and removed; otherwise nothing changes.
func (m personalMove) dropDuplicate() error {
	refused := &TargetExistsError{From: m.shownFrom, To: m.shownTo}
	want, err := m.root.ReadFile(m.to)
	if err != nil {
		return fmt.Errorf("read %s: %w", m.shownTo, err)
	}
	if have, err := m.root.ReadFile(m.from); err != nil || !bytes.Equal(have, want) {
		return refused
	}
	aside := path.Join(path.Dir(m.from), fsio.AsideName(path.Base(m.from)))
	if err := fsio.RenameNoReplace(m.root, m.from, aside); err != nil {
		return fmt.Errorf("move %s aside: %w", m.shownFrom, err)
	}
	have, err := m.root.ReadFile(aside)
	if err == nil && bytes.Equal(have, want) {
		if err := m.root.Remove(aside); err != nil {
			return fmt.Errorf("remove the team copy of %s: %w", m.shownTo, err)
		}
		return nil
	}
	if err := fsio.RenameNoReplace(m.root, aside, m.from); err != nil {
		return fmt.Errorf("%s changed while it was compared with %s and could not go back (%w); it is at %s",
			m.shownFrom, m.shownTo, err, filepath.Join(filepath.Dir(m.shownFrom), path.Base(aside)))
	}
	return refused
}
