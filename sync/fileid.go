package memsync

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/teammemd/teammemd/sync/fsio"
)

// FileID identifies one version of a path in the team directory by its
// metadata alone: the same FileID before and after means nobody wrote the
// file in between, but for a save of the same size within the file
// system's timestamp granularity (the index's racy case, see racyWindow).
type FileID struct {
	Dev, Inode uint64
	Size       int64
	MtimeNs    int64
	// Type is the file's type bits: 0 for a regular file, fs.ModeDir for
	// a directory.
	Type fs.FileMode
}

func fileID(fi fs.FileInfo) FileID {
	return FileID{Dev: fsio.Device(fi), Inode: fsio.Inode(fi), Size: fi.Size(), MtimeNs: fi.ModTime().UnixNano(), Type: fi.Mode().Type()}
}

// Identify returns the FileID of key's path in the team directory, not
// following a symlink; a missing path is an fs.ErrNotExist error. It looks
// through the team directory's root, so a link never leads it outside, and
// reads no file.
func (e *Engine) Identify(key string) (FileID, error) {
	root, err := os.OpenRoot(e.cfg.Dir)
	if err != nil {
		return FileID{}, fmt.Errorf("open team directory: %w", err)
	}
	defer root.Close()
	fi, err := root.Lstat(filepath.FromSlash(key))
	if err != nil {
		return FileID{}, err
	}
	return fileID(fi), nil
}

// writtenFile is what a write left at its path, as the stat after the write
// saw it: the index entry of the content written, and its FileID.
type writtenFile struct {
	index IndexEntry
	id    FileID
}

// pinWrite stats name in dir after content of size bytes and checksum sum
// was written there, and reports false when what is there is not a
// regular file of that size: a save came between the write and the stat.
// The index entry is racy, as the scan's is for a file it hashes that soon
// after its modification time (see racyWindow): a save of the same size
// in the same clock tick as the write keeps every field the stat sees, so
// the next scan hashes the file once more to be sure.
func pinWrite(dir *os.Root, name string, size int64, sum string, now time.Time) (writtenFile, bool) {
	fi, err := dir.Lstat(name)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() != size {
		return writtenFile{}, false
	}
	e := IndexEntry{Size: fi.Size(), MtimeNs: fi.ModTime().UnixNano(), Inode: fsio.Inode(fi), Hash: sum, Racy: now.Sub(fi.ModTime()) < racyWindow}
	return writtenFile{index: e, id: fileID(fi)}, true
}
