// Package fault lets tests make the sync engine's reads of team files fail
// where a real failure cannot be arranged: running as root, a file with
// mode 000 is still readable, so a test of how the engine holds back an
// unreadable file sets a read fault instead. Read faults exist only in a
// build with the tag testhooks: in any other build the engine never asks
// for one, and a test that needs one and runs as root is skipped.
package fault

import "os"

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
	var skip, faultSkip string
	if os.Geteuid() == 0 {
		skip = "running as root, which reads a mode 000 file: the read fault covers this; run as another user to test a real permission"
		if !Enabled {
			faultSkip = "running as root, which reads a mode 000 file, and read faults need the build tag testhooks"
		}
	}
	return []Denial{{Name: "read fault", Skip: faultSkip, Deny: withFault}, {Name: "real permission", Skip: skip, Deny: byMode}}
}
