package daemon

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/sync/internal/fault"
)

// TestUnreadableFileHeldBackInStatus makes a.md unreadable in each way of
// fault.Denials.
func TestUnreadableFileHeldBackInStatus(t *testing.T) {
	for _, d := range fault.Denials() {
		t.Run(d.Name, func(t *testing.T) {
			if d.Skip != "" {
				t.Skip(d.Skip)
			}
			bubble(t, func(t *testing.T) {
				testUnreadableInStatus(t, func(path string) func() {
					allow, err := d.Deny(path)
					if err != nil {
						t.Fatal(err)
					}
					return func() {
						if err := allow(); err != nil {
							t.Fatal(err)
						}
					}
				})
			})
		})
	}
}

// testUnreadableInStatus checks that the daemon holds back a file it
// cannot read, shows it in the status, syncs the other notes, and syncs it
// as soon as a chmod makes it readable.
func testUnreadableInStatus(t *testing.T, deny func(path string) (allow func())) {
	srv := startServer(t)
	dir, n := syncedRepo(t, srv, t.TempDir())
	write(t, dir, "a.md", "a, edited here\n")
	allow := deny(filepath.Join(dir, "a.md"))
	write(t, dir, "b.md", "b, edited here\n")
	eventually(t, "b.md's edit on the server", onServer(t, srv, map[string]string{"b.md": "b, edited here\n"}))
	newTeammate(t, srv).write(t, "e.md", "from a teammate\n")
	eventually(t, "the teammate's note pulled", fileIs(filepath.Join(dir, "e.md"), "from a teammate\n"))
	if got := serverEntries(t, srv)["a.md"]; got != "a\n" {
		t.Errorf("server a.md = %q while unreadable, want %q", got, "a\n")
	}
	eventually(t, "a.md held back in the status", func() bool {
		r, _ := n.repoStatus(dir)
		return r.State == StateHeld && len(r.Held) == 1 && r.Held[0].Path == "a.md" &&
			strings.Contains(r.Held[0].Reason, "permission denied") && len(r.Pending) == 0
	})
	allow()
	eventually(t, "a.md's edit on the server once readable", onServer(t, srv, map[string]string{"a.md": "a, edited here\n"}))
	eventually(t, "the repo idle", func() bool { r, _ := n.repoStatus(dir); return r.State == StateIdle && len(r.Held) == 0 })
}
