//go:build unix

package login

import (
	"errors"
	"os"
	"syscall"

	"github.com/teammemd/teammemd/sync/fsio"
)

// tryLock takes an exclusive flock on f if no other open file holds one,
// and reports whether it did. The kernel lets go of it when the process
// ends, however it ends.
func tryLock(f *os.File) (bool, error) { return fsio.TryLock(f) }

// running reports whether a process with pid runs on this machine.
func running(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
