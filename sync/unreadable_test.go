package memsync

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/server/servertest"
	"github.com/teammemd/teammemd/sync/internal/fault"
)

// TestUnreadableFileHeldBack makes note1.md unreadable in each way of
// fault.Denials.
func TestUnreadableFileHeldBack(t *testing.T) {
	for _, d := range fault.Denials() {
		t.Run(d.Name, func(t *testing.T) {
			if d.Skip != "" {
				t.Skip(d.Skip)
			}
			testUnreadableHeldBack(t, func(path string) func() {
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
	}
}

// testUnreadableHeldBack checks that a file the engine cannot read is held
// back: the other notes push and pull, it is neither deleted on the server
// nor overwritten by a teammate's version, and it syncs once readable.
func testUnreadableHeldBack(t *testing.T, deny func(path string) (allow func())) {
	srv := servertest.Start(t)
	a := newPeer(t, srv.URL, srv.Token, nil)
	b := newPeer(t, srv.URL, srv.Token, nil)
	a.write(t, "note1.md", "one\n")
	a.write(t, "note2.md", "two\n")
	a.sync(t)
	b.sync(t)

	a.write(t, "note1.md", "one, edited here\n")
	allow := deny(filepath.Join(a.dir, "note1.md"))
	a.write(t, "note2.md", "two, edited here\n")
	b.write(t, "note3.md", "three\n")
	b.sync(t)
	rep, err := a.eng.Sync(context.Background())
	if err != nil {
		t.Fatalf("Sync with note1.md unreadable = %v, want the other notes synced", err)
	}
	assertHeld(t, rep, "note1.md")
	want := map[string]string{"note1.md": "one\n", "note2.md": "two, edited here\n", "note3.md": "three\n"}
	for k, v := range want {
		if got := serverEntries(t, srv)[k]; got != v {
			t.Errorf("server %s = %q, want %q", k, got, v)
		}
	}
	if got := a.read(t, "note3.md"); got != "three\n" {
		t.Errorf("note3.md = %q, want the teammate's note pulled", got)
	}

	// A teammate's version must not replace a file whose content is unknown.
	b.sync(t)
	b.write(t, "note1.md", "one, from b\n")
	b.sync(t)
	rep, err = a.eng.Sync(context.Background())
	if err != nil {
		t.Fatalf("Sync with note1.md unreadable after a teammate changed it = %v, want nil", err)
	}
	assertHeld(t, rep, "note1.md")
	allow()
	if got := a.read(t, "note1.md"); got != "one, edited here\n" {
		t.Fatalf("note1.md = %q while unreadable, want the local edit left alone", got)
	}

	// Readable again: it syncs, and the local edit that lost to the
	// teammate's is kept as a conflict copy.
	rep = a.sync(t)
	if len(rep.Held) != 0 {
		t.Errorf("Held = %+v once readable, want none", rep.Held)
	}
	if got := a.read(t, "note1.md"); got != "one, from b\n" {
		t.Errorf("note1.md = %q once readable, want the teammate's version", got)
	}
	assertConflict(t, rep, "note1.md", "one, edited here\n")
}

// assertHeld checks that rep holds back key, and only key, as unreadable.
func assertHeld(t *testing.T, rep Report, key string) {
	t.Helper()
	if len(rep.Held) != 1 || rep.Held[0].Key != key || !strings.Contains(rep.Held[0].Reason, "permission denied") {
		t.Errorf("Held = %+v, want %s held back: permission denied", rep.Held, key)
	}
}

// skipWithoutReadFault skips a test that makes a file unreadable by its
// mode and a read fault together where neither works: as root, in a build
// without read faults.
func skipWithoutReadFault(t *testing.T) {
	if d := fault.Denials()[0]; d.Skip != "" {
		t.Skip(d.Skip)
	}
}

func chmod(t testing.TB, path string, mode os.FileMode) {
	t.Helper()
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

// TestUnreadableSyncedFileLeftAlone makes a synced, unchanged file
// unreadable (its cached hash still matches, so only a pull that would
// replace or delete it finds out): a teammate's version and a teammate's
// deletion wait until it is readable, then land.
func TestUnreadableSyncedFileLeftAlone(t *testing.T) {
	skipWithoutReadFault(t)
	for _, deleted := range []bool{false, true} {
		t.Run(map[bool]string{false: "changed by a teammate", true: "deleted by a teammate"}[deleted], func(t *testing.T) {
			srv := servertest.Start(t)
			a, b := syncedPeers(t, srv)
			path := filepath.Join(a.dir, "a.md")
			restore := fault.DenyRead(path)
			chmod(t, path, 0o000)
			want := "a.md from b\n"
			if deleted {
				want = "<missing>"
				if err := os.Remove(filepath.Join(b.dir, "a.md")); err != nil {
					t.Fatal(err)
				}
			} else {
				b.write(t, "a.md", want)
			}
			b.write(t, "e.md", "e\n")
			b.sync(t)
			rep, err := a.eng.Sync(context.Background())
			if err != nil {
				t.Fatalf("Sync with a.md unreadable = %v, want nil", err)
			}
			assertHeld(t, rep, "a.md")
			if got := a.read(t, "e.md"); got != "e\n" {
				t.Errorf("e.md = %q, want the teammate's new note", got)
			}
			restore()
			chmod(t, path, 0o644)
			if got := a.read(t, "a.md"); got != "a.md\n" {
				t.Fatalf("a.md = %q while unreadable, want it untouched", got)
			}
			a.sync(t)
			if got := a.read(t, "a.md"); got != want {
				t.Errorf("a.md = %q once readable, want %q", got, want)
			}
		})
	}
}

// TestUnreadableDirectoryHeldBack makes a subdirectory unreadable: the
// synced files in it are not taken for deleted, a teammate's file for it
// is not written, and the other notes sync.
func TestUnreadableDirectoryHeldBack(t *testing.T) {
	skipWithoutReadFault(t)
	srv := servertest.Start(t)
	a := newPeer(t, srv.URL, srv.Token, nil)
	b := newPeer(t, srv.URL, srv.Token, nil)
	a.write(t, "sub/x.md", "x\n")
	a.write(t, "top.md", "top\n")
	a.sync(t)
	b.sync(t)
	sub := filepath.Join(a.dir, "sub")
	restore := fault.DenyRead(sub)
	chmod(t, sub, 0o000)
	defer chmod(t, sub, 0o755)
	b.write(t, "sub/y.md", "y from b\n")
	b.write(t, "top.md", "top from b\n")
	b.sync(t)
	rep, err := a.eng.Sync(context.Background())
	if err != nil {
		t.Fatalf("Sync with sub/ unreadable = %v, want nil", err)
	}
	if len(rep.Held) != 1 || rep.Held[0].Key != "sub/" {
		t.Errorf("Held = %+v, want sub/", rep.Held)
	}
	if got := serverEntries(t, srv)["sub/x.md"]; got != "x\n" {
		t.Errorf("server sub/x.md = %q, want it kept", got)
	}
	if got := a.read(t, "top.md"); got != "top from b\n" {
		t.Errorf("top.md = %q, want the teammate's version", got)
	}
	restore()
	chmod(t, sub, 0o755)
	a.sync(t)
	if got := a.read(t, "sub/y.md"); got != "y from b\n" {
		t.Errorf("sub/y.md = %q once readable, want the teammate's note", got)
	}
}
