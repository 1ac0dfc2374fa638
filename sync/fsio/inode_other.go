//go:build !unix

package fsio

import "io/fs"

// Inode is not available here; size and mtime identify a file version.
func Inode(fs.FileInfo) uint64 { return 0 }

// Device is not available here: every file is taken to be on one file
// system.
func Device(fs.FileInfo) uint64 { return 0 }
