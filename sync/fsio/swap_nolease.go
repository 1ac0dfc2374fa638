//go:build !linux

package fsio

import "os"

// ReadSettledAlone is ReadSettled. Without file leases it never knows that
// no other process has the file open, so it always reports false.
func ReadSettledAlone(dir *os.Root, name string) ([]byte, bool, error) {
	data, err := ReadSettled(dir, name)
	return data, false, err
}
