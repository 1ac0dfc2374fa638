// Package fsio holds the file operations of the sync engine that need no
// engine: atomic writes and exchanges through an os.Root, temporary files,
// reads that wait for a writer to close, file locks and file identity.
// Every name it creates starts with TempPrefix, so nothing it leaves
// behind ever syncs.
package fsio

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/teammemd/teammemd/internal/savetrace"
)

// TempPrefix starts the name of every temporary file the engine creates in
// the team directory; it is hidden, so it never syncs.
const TempPrefix = ".teammemd-"

// ErrNotRegular is returned when a write or delete target exists but is not
// a regular file (a symlink, dangling or not, or a directory), or when a
// parent of the target is not a directory.
var ErrNotRegular = errors.New("target exists and is not a regular file")

// MaxNameBytes is the longest file name most file systems accept.
const MaxNameBytes = 255

// renameInto writes data to a new temp file in dir, fsynced when durable,
// and renames it to name, so name holds either its old content or all of
// data. The caller syncs dir when the new name must survive a crash.
func renameInto(dir *os.Root, name string, data []byte, perm os.FileMode, durable bool) error {
	tmp, err := createTemp(dir, data, perm, nil, durable)
	if err != nil {
		return err
	}
	if err := dir.Rename(tmp, name); err != nil {
		dir.Remove(tmp)
		return err
	}
	return nil
}

// CreateTemp writes data to a new temp file in dir, fsynced, and returns
// its name. beforeWrite, when set, runs once the file exists. On any
// failure the temp file is removed.
func CreateTemp(dir *os.Root, data []byte, perm os.FileMode, beforeWrite func() error) (string, error) {
	return createTemp(dir, data, perm, beforeWrite, true)
}

// createTemp is CreateTemp, the file fsynced only when durable.
func createTemp(dir *os.Root, data []byte, perm os.FileMode, beforeWrite func() error, durable bool) (string, error) {
	name := TempPrefix + RandomHex() + ".tmp"
	f, err := dir.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return "", fmt.Errorf("create temp file: %w", err)
	}
	if beforeWrite != nil {
		err = beforeWrite()
	}
	if err == nil {
		_, err = f.Write(data)
		savetrace.Mark("temp.written", "")
	}
	if err == nil && durable {
		err = f.Sync()
		savetrace.Mark("temp.synced", "")
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		dir.Remove(name)
		return "", fmt.Errorf("write temp file: %w", err)
	}
	return name, nil
}

// SyncDir fsyncs dir inside root, so the entries written into it
// survive a crash. A file system that cannot fsync a directory
// (os.ErrInvalid) is no error.
func SyncDir(root *os.Root, dir string) error {
	d, err := root.Open(dir)
	if err != nil {
		return fmt.Errorf("sync directory %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) {
		return fmt.Errorf("sync directory %s: %w", dir, err)
	}
	return nil
}

// RandomHex returns 16 random lowercase hex digits, for a fresh file name.
func RandomHex() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// ReadAll reads f to its end; an error names the file.
func ReadAll(f *os.File) ([]byte, error) {
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", f.Name(), err)
	}
	return data, nil
}

// IsHex reports whether s is lowercase hex digits only.
func IsHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9') && !('a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// Executable reports whether mode is a regular file's that someone may
// execute.
func Executable(mode os.FileMode) bool { return mode.IsRegular() && mode.Perm()&0o111 != 0 }
