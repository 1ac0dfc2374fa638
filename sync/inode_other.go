//go:build !unix

package memsync

import "io/fs"

// inode is not available here; size and mtime identify a file version.
func inode(fs.FileInfo) uint64 { return 0 }

// device is not available here: every file is taken to be on one file
// system.
func device(fs.FileInfo) uint64 { return 0 }
