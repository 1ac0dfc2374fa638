package memsync

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/sync/fsio"
)

// Notes reads and writes the notes of one team directory for a writer
// outside the engine, such as "teammemd mcp". It changes files only, as a
// user's editor does, atomically and through the team directory's root,
// and leaves the push to the daemon, whose debounce, secret scan and
// conflict rules then apply as to any save. Every write is checked before
// anything touches disk: the key rules, a secret scan of the name and of
// the content, and a precondition on the note's current checksum, settled
// again after the swap so that a save racing the write is never lost.
type Notes struct {
	dir     string
	scanner SecretScanner
}

// NewNotes returns the notes of the team directory dir, whose writes
// scanner checks for secrets; a nil scanner is refused by every write.
func NewNotes(dir string, scanner SecretScanner) *Notes {
	return &Notes{dir: dir, scanner: scanner}
}

// Dir is the team directory.
func (n *Notes) Dir() string { return n.dir }

// NoteFile is one note found in a team directory.
type NoteFile struct {
	// Key is the note's path in the team directory, with "/".
	Key string
	// Size and ModTime are the file's.
	Size    int64
	ModTime time.Time
}

// List lists the notes of the team directory that would sync, by key,
// the files the walk of a push would find; a missing team directory has
// none. A note removed while it is listed is left out.
func (n *Notes) List() ([]NoteFile, error) {
	td, err := openTeamDir(n.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer td.close()
	found, _, err := td.walkFrom(".")
	if err != nil {
		return nil, err
	}
	out := make([]NoteFile, 0, len(found))
	for _, f := range found {
		fi, err := f.d.Info()
		if err != nil {
			continue
		}
		out = append(out, NoteFile{Key: f.key, Size: fi.Size(), ModTime: fi.ModTime()})
	}
	return out, nil
}

// Read returns the content of key's note and its file's details. A
// missing note is fs.ErrNotExist; a key that never syncs is refused; a
// note whose path goes through a symlink, or that is not a regular file,
// is an fsio.ErrNotRegular that says so.
func (n *Notes) Read(key string) ([]byte, NoteFile, error) {
	if err := CheckNoteKey(key); err != nil {
		return nil, NoteFile{}, err
	}
	td, err := openTeamDir(n.dir)
	if err != nil {
		return nil, NoteFile{}, err
	}
	defer td.close()
	return td.readNote(key)
}

// readNote reads key's regular file with the details of the file read,
// never through a symlink.
func (t *teamDir) readNote(key string) ([]byte, NoteFile, error) {
	if err := t.checkNote(opRead, key); err != nil {
		return nil, NoteFile{}, err
	}
	f, err := t.root.Open(key)
	if err != nil {
		return nil, NoteFile{}, fmt.Errorf("read %s: %w", key, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, NoteFile{}, fmt.Errorf("read %s: %w", key, err)
	}
	if fi.Size() > MaxFileBytes {
		return nil, NoteFile{}, fmt.Errorf("%s is %d bytes, over the %d a note may hold", key, fi.Size(), MaxFileBytes)
	}
	data, err := fsio.ReadAll(f)
	if err != nil {
		return nil, NoteFile{}, err
	}
	return data, NoteFile{Key: key, Size: int64(len(data)), ModTime: fi.ModTime()}, nil
}

// noteOp is what a caller asks of a note, as a refusal words it: "X is
// not readable", "not writable", "not deletable".
type noteOp string

const (
	opRead   noteOp = "readable"
	opWrite  noteOp = "writable"
	opDelete noteOp = "deletable"
)

// checkNote refuses op on key when a directory on its path is a symlink,
// or when key is a symlink or not a regular file, as the push's walk
// never finds such a note: a *noteFileError that says which. A missing
// note, or a directory on its path that is a file, is fs.ErrNotExist for
// a read and nil otherwise, for the write or the deletion to judge.
func (t *teamDir) checkNote(op noteOp, key string) error {
	var be *blockedError
	switch err := t.checkParents(key); {
	case errors.As(err, &be) && be.link:
		return &noteFileError{op: op, key: key, link: be.path}
	case errors.As(err, &be) && op == opRead:
		return fmt.Errorf("%s: %w", key, fs.ErrNotExist)
	case errors.As(err, &be):
		return nil
	case err != nil:
		return err
	}
	fi, err := t.root.Lstat(key)
	switch {
	case errors.Is(err, fs.ErrNotExist) && op != opRead:
		return nil
	case err != nil:
		return fmt.Errorf("stat %s: %w", key, err)
	case fi.Mode()&fs.ModeSymlink != 0:
		return &noteFileError{op: op, key: key, link: key}
	case !fi.Mode().IsRegular():
		return &noteFileError{op: op, key: key, mode: fi.Mode().Type()}
	}
	return nil
}

// noteFileError is a note refused for op: its path goes through link, a
// symlink (the note itself when link is key), or it is not a regular
// file but of type mode. It is an fsio.ErrNotRegular. It is the one
// wording of such a refusal, for a read, a write and a deletion alike.
type noteFileError struct {
	op        noteOp
	key, link string
	mode      fs.FileMode
}

func (e *noteFileError) Is(target error) bool { return target == fsio.ErrNotRegular }

func (e *noteFileError) Error() string {
	const never = "a symbolic link, which teammemd never follows"
	head := e.key + " is not " + string(e.op) + ": "
	switch {
	case e.link == e.key:
		return head + "it is " + never
	case e.link != "":
		return head + "its path goes through " + e.link + ", " + never
	case e.mode.IsDir():
		return head + "it is a directory, not a regular file"
	}
	return head + "it is not a regular file"
}

// NoteSum returns a precondition as an entry checksum: "sha256:" and 64
// lowercase hex digits, the prefix optional; "" stays "" (the note must
// not exist).
func NoteSum(s string) (string, error) {
	if s == "" {
		return "", nil
	}
	hex := strings.ToLower(strings.TrimPrefix(s, api.ChecksumPrefix))
	if len(hex) != 64 || !fsio.IsHex(hex) {
		return "", fmt.Errorf("sha256 %q: want %s followed by 64 hex digits, as a read returns it", s, api.ChecksumPrefix)
	}
	return api.ChecksumPrefix + hex, nil
}
