//go:build !unix

package memsync

import "io/fs"

// inode is not available here; size and mtime identify a file version.
func inode(fs.FileInfo) uint64 { return 0 }
