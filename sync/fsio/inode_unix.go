//go:build unix

package fsio

import (
	"io/fs"
	"syscall"
)

// Inode returns the file's inode number, so a replaced file is noticed even
// when its size and mtime match.
func Inode(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}

// Device returns the number of the file system that holds the file.
func Device(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Dev)
	}
	return 0
}
