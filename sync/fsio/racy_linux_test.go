package fsio

import (
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// The racy window follows the file system: fine on the local file systems
// with nanosecond timestamps, the slow one elsewhere.
func TestRacyWindowFollowsTheFileSystem(t *testing.T) {
	dir := t.TempDir()
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	want := SlowRacyWindow
	if fineTimestamps[uint32(st.Type)] {
		want = FineRacyWindow
	}
	if got := RacyWindow(root); got != want {
		t.Errorf("RacyWindow on a file system of type %#x = %v, want %v", st.Type, got, want)
	}
	if (st.Type == unix.EXT4_SUPER_MAGIC || st.Type == unix.TMPFS_MAGIC) && want != FineRacyWindow {
		t.Errorf("ext4 and tmpfs have fine timestamps")
	}
	if proc, err := os.OpenRoot("/proc"); err == nil {
		defer proc.Close()
		if got := RacyWindow(proc); got != SlowRacyWindow {
			t.Errorf("RacyWindow on /proc = %v, want the slow window for a file system not known to be fine", got)
		}
	}
}
