//go:build !linux && !darwin

package fsio

import (
	"os"
	"time"
)

// RacyWindow returns SlowRacyWindow: here the file system's timestamps are
// not asked about.
func RacyWindow(dir *os.Root) time.Duration { return SlowRacyWindow }
