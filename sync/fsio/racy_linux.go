package fsio

import (
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// fineTimestamps are the Linux file systems whose timestamps have
// nanosecond fields set from the local kernel's clock.
var fineTimestamps = map[uint32]bool{
	unix.EXT4_SUPER_MAGIC:      true, // ext2, ext3 and ext4 share it
	unix.XFS_SUPER_MAGIC:       true,
	unix.BTRFS_SUPER_MAGIC:     true,
	unix.TMPFS_MAGIC:           true,
	unix.F2FS_SUPER_MAGIC:      true,
	unix.OVERLAYFS_SUPER_MAGIC: true, // its files are on one of the others
	0x2fc12fc1:                 true, // ZFS
	unix.BCACHEFS_SUPER_MAGIC:  true,
}

// RacyWindow returns the racy window of the file system that holds dir:
// FineRacyWindow for the local file systems with fine timestamps, else
// SlowRacyWindow, also when the file system cannot be asked.
func RacyWindow(dir *os.Root) time.Duration {
	var st unix.Statfs_t
	err := withDirFD(dir, func(fd int) error { return unix.Fstatfs(fd, &st) })
	if err != nil || !fineTimestamps[uint32(st.Type)] {
		return SlowRacyWindow
	}
	return FineRacyWindow
}
