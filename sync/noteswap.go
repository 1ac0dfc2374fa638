package memsync

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/teammemd/teammemd/sync/fsio"
)

// StaleError refuses a write or a deletion whose precondition no longer
// holds: the note is not the version the caller read.
type StaleError struct {
	Key string
	// Want is the checksum the caller passed, "" for a note that must not
	// exist yet.
	Want string
	// Current is the note's checksum now, "" when it does not exist.
	Current string
}

func (e *StaleError) Error() string {
	switch {
	case e.Want == "":
		return fmt.Sprintf("%s already exists (current sha256 %s); read it and pass that sha256 to replace it", e.Key, e.Current)
	case e.Current == "":
		return fmt.Sprintf("%s does not exist (deleted since it was read, or never written); pass no sha256 to create it", e.Key)
	}
	return fmt.Sprintf("%s changed since it was read: current sha256 %s, not %s; read it again", e.Key, e.Current, e.Want)
}

// errBeingWritten refuses a change to a file another program holds open
// for writing.
var errBeingWritten = errors.New("another program is writing it; try again")

// replaceIfMatch puts data at name in dir when the file there has the
// checksum want. The new content is exchanged in first (RENAME_EXCHANGE),
// then the file it displaced is judged: a save made between the caller's
// read and the exchange is not the version want, so it is exchanged back
// and the write refused. The displaced file waits under an aside name,
// which the daemon's sweep judges should the process die meanwhile. Where
// the system has no exchange it checks, then renames over name, which
// leaves a short window (docs/RELIABILITY.md, Write path).
func replaceIfMatch(dir *os.Root, name string, data []byte, want string) error {
	tmp, err := fsio.CreateTemp(dir, data, 0o644, nil)
	if err != nil {
		return err
	}
	aside := fsio.AsideName(name)
	if err := dir.Rename(tmp, aside); err != nil {
		dir.Remove(tmp)
		return err
	}
	err = fsio.Exchange(dir, aside, name)
	switch {
	case errors.Is(err, fsio.ErrNoAtomicRename):
		return renameIfMatch(dir, aside, name, want)
	case err != nil:
		dir.Remove(aside)
		return err
	}
	if err := settleDisplaced(dir, aside, name, want); err != nil {
		return err
	}
	return dir.Remove(aside)
}

// settleDisplaced judges the file an exchange moved from name to aside:
// not a regular file of checksum want, it is exchanged back, the new
// content removed, and the write refused.
func settleDisplaced(dir *os.Root, aside, name, want string) error {
	sum, err := regularSum(dir, aside)
	if err == nil && sum == want {
		return nil
	}
	if xerr := fsio.Exchange(dir, aside, name); xerr != nil {
		return fmt.Errorf("put %s back after a refused write (it stays at %s): %w", name, aside, xerr)
	}
	dir.Remove(aside)
	if err != nil {
		return err
	}
	return &StaleError{Current: sum}
}

// renameIfMatch is replaceIfMatch where no exchange exists: check, then
// rename over.
func renameIfMatch(dir *os.Root, from, name, want string) error {
	sum, err := regularSum(dir, name)
	if err == nil && sum != want {
		err = &StaleError{Current: sum}
	}
	if err == nil {
		err = dir.Rename(from, name)
	}
	if err != nil {
		dir.Remove(from)
	}
	return err
}

// removeIfMatch removes name from dir when its checksum is want: the file
// is moved aside first, in one step, and judged there; one that is not
// the version want is moved back, unless a new file took its name
// meanwhile, and then it stays aside for the daemon's sweep to keep as a
// conflict copy.
func removeIfMatch(dir *os.Root, name, want string) error {
	if _, err := regularSum(dir, name); err != nil {
		return err
	}
	aside := fsio.AsideName(name)
	if err := dir.Rename(name, aside); err != nil {
		return err
	}
	sum, err := regularSum(dir, aside)
	if err == nil && sum == want {
		return dir.Remove(aside)
	}
	if rerr := fsio.RenameNoReplace(dir, aside, name); rerr != nil {
		return fmt.Errorf("put %s back after a refused deletion (it stays at %s): %w", name, aside, rerr)
	}
	if err != nil {
		return err
	}
	return &StaleError{Current: sum}
}

// regularSum returns the checksum of name, a regular file in dir, read
// once no other program holds it open for writing. A missing file is a
// *StaleError with no current checksum.
func regularSum(dir *os.Root, name string) (string, error) {
	fi, err := dir.Lstat(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", &StaleError{}
	case err != nil:
		return "", err
	case !fi.Mode().IsRegular():
		return "", fmt.Errorf("%w (%s)", fsio.ErrNotRegular, fi.Mode().Type())
	}
	data, err := fsio.ReadSettled(dir, name)
	if errors.Is(err, fsio.ErrStillOpen) {
		return "", errBeingWritten
	}
	if err != nil {
		return "", err
	}
	return entrySum(data), nil
}
