package fsio

import (
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// RacyWindow returns the racy window of the file system that holds dir:
// FineRacyWindow on APFS, whose timestamps have nanosecond fields, else
// SlowRacyWindow (HFS+ keeps whole seconds), also when the file system
// cannot be asked.
func RacyWindow(dir *os.Root) time.Duration {
	var st unix.Statfs_t
	err := withDirFD(dir, func(fd int) error { return unix.Fstatfs(fd, &st) })
	if err != nil || unix.ByteSliceToString(st.Fstypename[:]) != "apfs" {
		return SlowRacyWindow
	}
	return FineRacyWindow
}
