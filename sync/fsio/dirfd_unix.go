//go:build linux || darwin

package fsio

import "os"

// withDirFD runs fn on a descriptor of dir itself, for the *at system
// calls that act on names inside it.
func withDirFD(dir *os.Root, fn func(fd int) error) error {
	d, err := dir.Open(".")
	if err != nil {
		return err
	}
	defer d.Close()
	rc, err := d.SyscallConn()
	if err != nil {
		return err
	}
	var opErr error
	if err := rc.Control(func(fd uintptr) { opErr = fn(int(fd)) }); err != nil {
		return err
	}
	return opErr
}
