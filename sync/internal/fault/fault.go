// Package fault lets tests make the sync engine's reads of team files fail
// where a real failure cannot be arranged: running as root, a file with
// mode 000 is still readable, so a test of how the engine holds back an
// unreadable file sets a read fault instead. Nothing but tests sets one.
package fault

import (
	"io/fs"
	"os"
	"slices"
	"sync/atomic"
	"syscall"
)

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

// Denial is one way for a test to make a file unreadable.
type Denial struct {
	// Name names the way, for the subtest.
	Name string
	// Skip, when not "", is why the way cannot work here.
	Skip string
	// Deny makes path unreadable and returns what makes it readable again.
	Deny func(path string) (allow func() error, err error)
}

// Denials are the ways to make a file unreadable: its mode 000 and a read
// fault together, which fail for whoever runs the test, root included; and
// its mode alone, the real thing, which root reads all the same.
func Denials() []Denial {
	byMode := func(path string) (func() error, error) {
		if err := os.Chmod(path, 0o000); err != nil {
			return nil, err
		}
		return func() error { return os.Chmod(path, 0o644) }, nil
	}
	withFault := func(path string) (func() error, error) {
		restore := DenyRead(path)
		allow, err := byMode(path)
		if err != nil {
			restore()
			return nil, err
		}
		return func() error { restore(); return allow() }, nil
	}
	var skip string
	if os.Geteuid() == 0 {
		skip = "running as root, which reads a mode 000 file: the read fault covers this; run as another user to test a real permission"
	}
	return []Denial{{Name: "read fault", Deny: withFault}, {Name: "real permission", Skip: skip, Deny: byMode}}
}
