package memsync

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/teammemd/teammemd/server/servertest"
)

// Two team directories of one repo on one machine, with one state root
// (two checkouts of a repo, each with its Claude Code project), are two
// replicas: each pulls what the other pushed, and a save in one never
// sends the server back the other's older note.
func TestTwoDirectoriesOfOneRepo(t *testing.T) {
	srv := servertest.Start(t)
	state := t.TempDir()
	first, second := sameStatePeer(t, srv, state, "app1"), sameStatePeer(t, srv, state, "app2")
	first.write(t, "n.md", "v1\n")
	first.sync(t)
	second.sync(t)
	first.write(t, "n.md", "v2 from the first checkout\n")
	first.sync(t)
	second.write(t, "other.md", "x\n")
	second.sync(t)
	if got := serverEntries(t, srv)["n.md"]; got != "v2 from the first checkout\n" {
		t.Errorf("the server's n.md after the second checkout synced = %q, want the first checkout's newer note", got)
	}
	if got := second.read(t, "n.md"); got != "v2 from the first checkout\n" {
		t.Errorf("the second checkout's n.md = %q, want the first checkout's newer note", got)
	}
	if filepath.Dir(first.eng.StatePath()) == filepath.Dir(second.eng.StatePath()) {
		t.Errorf("both directories keep their state in %s", filepath.Dir(first.eng.StatePath()))
	}
}

// sameStatePeer is a peer on srv whose team directory is named name, with
// the state root state.
func sameStatePeer(t *testing.T, srv *servertest.Server, state, name string) *peer {
	t.Helper()
	p := &peer{dir: filepath.Join(t.TempDir(), name, "team"), state: state}
	if err := os.MkdirAll(p.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p.eng = newTestEngine(t, srv.URL, srv.Token, p.dir, state, nil)
	return p
}

// The first directory to sync a repo keeps the state directory it always
// had, so an upgrade changes nothing for it; another directory gets one
// of its own, the same each time; a reader (the session-start hook) finds
// each directory's; and one directory spelled through a symbolic link is
// the same directory.
func TestStateDirOf(t *testing.T) {
	state, root := t.TempDir(), t.TempDir()
	one, two := filepath.Join(root, "one"), filepath.Join(root, "two")
	for _, d := range []string{one, two} {
		must(t, os.MkdirAll(d, 0o755))
	}
	link := filepath.Join(root, "link")
	must(t, os.Symlink(one, link))
	base := repoStateDir(state, testRepo, "h")
	if got, err := stateDirOf(state, testRepo, "h", two, false); err != nil || got != base {
		t.Errorf("a reader before any engine = %q, %v, want %q", got, err, base)
	}
	if got, err := stateDirOf(state, testRepo, "h", one, true); err != nil || got != base {
		t.Errorf("the first directory = %q, %v, want %q", got, err, base)
	}
	other, err := stateDirOf(state, testRepo, "h", two, true)
	if err != nil || other == base || filepath.Dir(other) != filepath.Dir(base) {
		t.Errorf("the second directory = %q, %v, want one of its own beside %q", other, err, base)
	}
	for _, tc := range []struct {
		dir   string
		claim bool
		want  string
	}{{two, true, other}, {two, false, other}, {one, false, base}, {link, true, base}} {
		if got, err := stateDirOf(state, testRepo, "h", tc.dir, tc.claim); err != nil || got != tc.want {
			t.Errorf("stateDirOf(%s, claim %v) = %q, %v, want %q", tc.dir, tc.claim, got, err, tc.want)
		}
	}
}
