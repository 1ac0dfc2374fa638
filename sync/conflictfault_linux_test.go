package memsync

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/teammemd/teammemd/server/servertest"
)

// smallTmpfs mounts a tmpfs of size bytes on a new temp directory until the
// test ends. It needs root, and runs only when TEAMMEMD_FS_TESTS=1.
func smallTmpfs(t *testing.T, size string) string {
	t.Helper()
	if os.Getenv("TEAMMEMD_FS_TESTS") != "1" {
		t.Skip("mounts a small tmpfs: set TEAMMEMD_FS_TESTS=1 and run as root (see RELIABILITY.md)")
	}
	if os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs needs root: run as root with TEAMMEMD_FS_TESTS=1")
	}
	dir := t.TempDir()
	if err := unix.Mount("tmpfs", dir, "tmpfs", 0, "size="+size); err != nil {
		t.Fatalf("mount tmpfs on %s: %v", dir, err)
	}
	t.Cleanup(func() {
		if err := unix.Unmount(dir, 0); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
	return dir
}

// fill writes a file into dir until the file system is full, and returns
// its path.
func fill(t *testing.T, dir string) string {
	t.Helper()
	p := filepath.Join(dir, "filler")
	f, err := os.Create(p)
	must(t, err)
	defer f.Close()
	chunk := make([]byte, 4096)
	for range 1 << 16 {
		if _, err := f.Write(chunk); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("fill %s: %v", dir, err)
			}
			return p
		}
	}
	t.Fatalf("fill %s: still room after 256 MiB", dir)
	return p
}

func TestConflictCopyOnFullDisk(t *testing.T) {
	stateFS := smallTmpfs(t, "1m")
	srv := servertest.Start(t)
	a, b, keys := editedOnBothSides(t, srv)
	_ = a
	b.state = filepath.Join(stateFS, "state")
	b.eng = newTestEngine(t, srv.URL, srv.Token, b.dir, b.state, nil)
	must(t, os.MkdirAll(filepath.Join(b.state, "conflicts"), 0o700))
	filler := fill(t, stateFS)
	if _, err := b.eng.Pull(context.Background()); err == nil {
		t.Fatal("Pull with the state directory full succeeded, want an error")
	}
	if got := conflictFiles(t, b); len(got) != 0 {
		t.Errorf("conflict directory holds %v after a full disk, want nothing", got)
	}
	for _, k := range keys {
		if got, want := b.read(t, k), "local edit of "+k+"\n"; got != want {
			t.Errorf("%s = %q after a full disk, want the local edit untouched", k, got)
		}
	}
	must(t, os.Remove(filler))
	rep, err := b.eng.Pull(context.Background())
	if err != nil {
		t.Fatalf("Pull once the disk has room: %v", err)
	}
	if len(rep.Conflicts) != len(keys) {
		t.Errorf("next Pull kept %d conflict copies, want %d", len(rep.Conflicts), len(keys))
	}
}
