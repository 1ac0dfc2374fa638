//go:build !linux

package claudelab

import (
	"errors"
	"os/exec"
)

var errNoNetns = errors.New("a network namespace of its own needs Linux")

// Isolate fails: only Linux gives a process a network namespace of its
// own.
func Isolate(*exec.Cmd) error { return errNoNetns }

// LoopbackUp fails: only Linux gives a process a network namespace of its
// own.
func LoopbackUp() error { return errNoNetns }
