//go:build unix

package memsync

import (
	"io/fs"
	"syscall"
)

// inode returns the file's inode number, so a replaced file is noticed even
// when its size and mtime match.
func inode(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}

// device returns the number of the file system that holds the file.
func device(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Dev)
	}
	return 0
}
