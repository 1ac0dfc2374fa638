//go:build unix

package fsio

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// TryLock takes an exclusive flock on f without blocking. It reports false
// when another process (or another open of the file) holds it.
func TryLock(f *os.File) (bool, error) {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return true, nil
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EWOULDBLOCK):
			return false, nil
		default:
			return false, fmt.Errorf("flock %s: %w", f.Name(), err)
		}
	}
}
