//go:build testhooks

package fault

import (
	"io/fs"
	"slices"
	"sync/atomic"
	"syscall"
)

// Enabled reports whether the engine asks Read before it reads.
const Enabled = true

var read atomic.Pointer[func(path string) error]

// SetRead makes Read return f(path) until restore is called.
func SetRead(f func(path string) error) (restore func()) {
	read.Store(&f)
	return func() { read.Store(nil) }
}

// DenyRead makes Read fail for each of paths as reading a file with mode
// 000 does for a normal user, with EACCES, until restore is called.
func DenyRead(paths ...string) (restore func()) {
	return SetRead(func(path string) error {
		if slices.Contains(paths, path) {
			return &fs.PathError{Op: "open", Path: path, Err: syscall.EACCES}
		}
		return nil
	})
}

// Read returns the error a test set for reading path (an absolute file or
// directory path), or nil.
func Read(path string) error {
	if f := read.Load(); f != nil {
		return (*f)(path)
	}
	return nil
}
