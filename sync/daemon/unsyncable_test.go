package daemon

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	memsync "github.com/teammemd/teammemd/sync"
)

// TestUnsyncableFilesHeldBackInStatus: a note over the size limit, one
// that is a symlink, and a teammate's note that such a file stands in the
// way of are listed in the status with the reason, not only counted, and
// the repo is not idle meanwhile; once fixed, the note syncs and the repo
// is idle.
func TestUnsyncableFilesHeldBackInStatus(t *testing.T) {
	bubble(t, testUnsyncableInStatus)
}

func testUnsyncableInStatus(t *testing.T) {
	srv := startServer(t)
	dir, n := syncedRepo(t, srv, t.TempDir())
	write(t, dir, "big.md", strings.Repeat("x", memsync.MaxFileBytes+1))
	target := filepath.Join(t.TempDir(), "elsewhere.md")
	if err := os.WriteFile(target, []byte("kept elsewhere\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(dir, "link.md")); err != nil {
		t.Fatal(err)
	}
	newTeammate(t, srv).write(t, "link.md", "the teammate's link.md\n")
	write(t, dir, "b.md", "b, edited here\n")
	eventually(t, "b.md's edit on the server", onServer(t, srv, map[string]string{"b.md": "b, edited here\n"}))
	want := map[string]string{"big.md": "over the", "link.md": "symlink"}
	eventually(t, "big.md and link.md held back in the status, with the reason", func() bool {
		r, _ := n.repoStatus(dir)
		if r.State != StateHeld || len(r.Held) != len(want) || r.LastPush == nil || !strings.Contains(r.LastPush.Result, "2 held back") {
			return false
		}
		for _, h := range r.Held {
			if !strings.Contains(h.Reason, want[h.Path]) {
				return false
			}
		}
		return true
	})
	if got := serverEntries(t, srv); slices.Contains(keysOf(got), "big.md") || got["link.md"] != "the teammate's link.md\n" {
		t.Errorf("server entries = %v, want no big.md and the teammate's link.md", keysOf(got))
	}
	if target, err := os.Readlink(filepath.Join(dir, "link.md")); err != nil || !strings.HasSuffix(target, "elsewhere.md") {
		t.Errorf("local link.md = %q, %v; want the symlink left as it was", target, err)
	}
	write(t, dir, "big.md", "small now\n")
	if err := os.Remove(filepath.Join(dir, "link.md")); err != nil {
		t.Fatal(err)
	}
	eventually(t, "big.md's edit on the server once it fits", onServer(t, srv, map[string]string{"big.md": "small now\n"}))
	eventually(t, "the teammate's link.md pulled once the symlink is gone", fileIs(filepath.Join(dir, "link.md"), "the teammate's link.md\n"))
	eventually(t, "the repo idle", func() bool { r, _ := n.repoStatus(dir); return r.State == StateIdle && len(r.Held) == 0 })
}
