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
// missing note is fs.ErrNotExist; a key that never syncs is refused.
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

// readNote reads key's regular file with the details of the file read.
func (t *teamDir) readNote(key string) ([]byte, NoteFile, error) {
	if err := t.checkRegular(key); err != nil {
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
