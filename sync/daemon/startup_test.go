package daemon

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// repoStateDir returns the one repo directory under a state root.
func repoStateDir(t *testing.T, state string) string {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join(state, "repos", "*"))
	if err != nil || len(dirs) != 1 {
		t.Fatalf("repo state directories under %s = %v, %v; want one", state, dirs, err)
	}
	return dirs[0]
}

// TestStartupFailureRetried starts the daemon on a repo whose state cannot
// be locked, with a file written while it was stopped: the failed start is
// retried, the status says so with the cause and lists the file, and once
// the state directory is usable again the file is pushed without any other
// change to wake the daemon.
func TestStartupFailureRetried(t *testing.T) { bubble(t, testStartupFailureRetried) }

func testStartupFailureRetried(t *testing.T) {
	srv := startServer(t)
	state := t.TempDir()
	dir, n := syncedRepo(t, srv, state)
	n.stop(t)
	write(t, dir, "new.md", "written while the daemon was stopped\n")
	lock := filepath.Join(repoStateDir(t, state), "lock")
	if err := os.Remove(lock); err != nil {
		t.Fatal(err)
	}
	// A directory where the lock file goes: every pull and push fails to
	// open it, as they fail to write on a full disk.
	if err := os.Mkdir(lock, 0o700); err != nil {
		t.Fatal(err)
	}
	n = startRepo(t, srv, dir, state, nil)
	eventually(t, "a retry with its cause in the status", func() bool {
		r, _ := n.repoStatus(dir)
		return r.State == StateRetrying && r.NextRetry != nil && strings.Contains(r.RetryCause, "lock") &&
			slices.Equal(r.Pending, []string{"new.md"})
	})
	if err := os.Remove(lock); err != nil {
		t.Fatal(err)
	}
	eventually(t, "new.md on the server", onServer(t, srv, map[string]string{"new.md": "written while the daemon was stopped\n"}))
	eventually(t, "the repo idle", func() bool {
		r, _ := n.repoStatus(dir)
		return r.State == StateIdle && len(r.Pending) == 0 && r.NextRetry == nil
	})
}

// TestStartupOnFullDisk starts the daemon on a repo whose team and state
// directories are on a full file system, out of space and inodes, with a
// file written while it was stopped: the status says what fails and lists
// the file until space is freed, then the repo converges. It mounts a
// small tmpfs, so it runs only as root with TEAMMEMD_FS_TESTS=1.
func TestStartupOnFullDisk(t *testing.T) {
	if os.Getenv("TEAMMEMD_FS_TESTS") != "1" || os.Geteuid() != 0 {
		t.Skip("mounts a tmpfs: set TEAMMEMD_FS_TESTS=1 and run as root (see RELIABILITY.md); TestStartupFailureRetried covers the same without it")
	}
	mnt := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=1m,nr_inodes=64", "tmpfs", mnt).CombinedOutput(); err != nil {
		t.Fatalf("mount tmpfs: %v: %s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", mnt).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", mnt, err, out)
		}
	})
	bubble(t, func(t *testing.T) { testStartupOnFullDisk(t, mnt) })
}

// testStartupOnFullDisk is TestStartupOnFullDisk on the file system
// mounted at mnt, in a bubble.
func testStartupOnFullDisk(t *testing.T, mnt string) {
	srv := startServer(t)
	dir, state := filepath.Join(mnt, "team"), filepath.Join(mnt, "state")
	n := syncedRepoIn(t, srv, dir, state)
	n.stop(t)
	write(t, dir, "new.md", "written while the daemon was stopped\n")
	free := fill(t, mnt)
	n = startRepo(t, srv, dir, state, nil)
	eventually(t, "a retry for lack of space in the status", func() bool {
		r, _ := n.repoStatus(dir)
		return r.State == StateRetrying && strings.Contains(r.RetryCause, "no space left on device") &&
			slices.Equal(r.Pending, []string{"new.md"})
	})
	free()
	eventually(t, "new.md on the server", onServer(t, srv, map[string]string{"new.md": "written while the daemon was stopped\n"}))
	eventually(t, "the repo idle", func() bool {
		r, _ := n.repoStatus(dir)
		return r.State == StateIdle && len(r.Pending) == 0 && r.NextRetry == nil
	})
}

// fill fills dir's file system, data and inodes, so that neither a write
// nor the creation of an empty file succeeds, and returns the function
// that frees the space again.
func fill(t *testing.T, dir string) (free func()) {
	t.Helper()
	data := filepath.Join(dir, "filler")
	f, err := os.Create(data)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := make([]byte, 64<<10)
	for i := 0; ; i++ {
		if i == 1<<10 { // 64 MiB, far more than the 1 MiB mounted
			t.Fatalf("fill %s: still not full after 64 MiB", dir)
		}
		if _, err := f.Write(chunk); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("fill %s: %v", dir, err)
			}
			break
		}
	}
	paths := []string{data}
	for i := 0; ; i++ {
		if i == 1<<10 {
			t.Fatalf("fill %s: inodes left after 1024 files", dir)
		}
		p := filepath.Join(dir, fmt.Sprintf("inode-%d", i))
		f, err := os.Create(p)
		if errors.Is(err, syscall.ENOSPC) {
			break
		}
		if err != nil {
			t.Fatalf("fill %s: %v", dir, err)
		}
		f.Close()
		paths = append(paths, p)
	}
	return func() {
		for _, p := range paths {
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
		}
	}
}
