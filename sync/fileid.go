package memsync

import (
	"io/fs"

	"github.com/teammemd/teammemd/sync/fsio"
)

// FileID identifies one version of a path in the team directory by its
// metadata alone: the same FileID before and after means nobody wrote the
// file in between, but for a save of the same size within the file
// system's timestamp granularity (the index's racy case, see teamDir.racyWindow).
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
