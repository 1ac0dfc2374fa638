package daemon

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/teammemd/teammemd/server/servertest"
	memsync "github.com/teammemd/teammemd/sync"
)

// startRepo runs a daemon on one repo in dir with its state in state, a
// 100ms debounce and a rescan too slow to matter: every change the tests
// wait for comes from a notification or the daemon's own retries.
func startRepo(t *testing.T, srv *servertest.Server, dir, state string, edit func(*Options)) *node {
	t.Helper()
	return startNode(t, srv.Token, Plan{Specs: []Spec{{Repo: slug, Dir: dir, Server: srv.URL, Source: "test"}}}, func(o *Options) {
		c := &counter{next: newTransport(t)}
		o.Open = testOpener(t, srv.Token, state, c, nil)
		o.Watch.Rescan = time.Hour
		if edit != nil {
			edit(o)
		}
	})
}

// teammate is another machine syncing the repo with the engine alone.
type teammate struct {
	dir string
	eng *memsync.Engine
}

func newTeammate(t *testing.T, srv *servertest.Server) *teammate {
	t.Helper()
	client, err := memsync.NewClient(srv.URL, oauth2.StaticTokenSource(&oauth2.Token{AccessToken: srv.Token}), memsync.WithTransport(newTransport(t)))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	eng, err := memsync.New(memsync.Config{Dir: dir, Repo: slug, Server: srv.URL, StateDir: t.TempDir()}, memsync.Options{Client: client})
	if err != nil {
		t.Fatal(err)
	}
	return &teammate{dir: dir, eng: eng}
}

// write writes key and syncs.
func (m *teammate) write(t *testing.T, key, value string) {
	t.Helper()
	write(t, m.dir, key, value)
	if _, err := m.eng.Sync(context.Background()); err != nil {
		t.Fatalf("teammate Sync: %v", err)
	}
}

// notesIn returns a condition that holds once dir holds every note of want.
func notesIn(dir string, want map[string]string) func() bool {
	return func() bool {
		for k, v := range want {
			if !fileIs(filepath.Join(dir, k), v)() {
				return false
			}
		}
		return true
	}
}

// onServer returns a condition that holds once the server holds every
// note of want.
func onServer(t *testing.T, srv *servertest.Server, want map[string]string) func() bool {
	return func() bool {
		got := serverEntries(t, srv)
		for k, v := range want {
			if got[k] != v {
				return false
			}
		}
		return true
	}
}

var abc = map[string]string{"a.md": "a\n", "b.md": "b\n", "c.md": "c\n"}

// syncedRepo writes abc into a new team directory and runs a daemon on it
// until the server holds them and the repo is idle.
func syncedRepo(t *testing.T, srv *servertest.Server, state string) (dir string, n *node) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "team")
	return dir, syncedRepoIn(t, srv, dir, state)
}

// syncedRepoIn is syncedRepo in a team directory of the caller's.
func syncedRepoIn(t *testing.T, srv *servertest.Server, dir, state string) (n *node) {
	t.Helper()
	for k, v := range abc {
		write(t, dir, k, v)
	}
	n = startRepo(t, srv, dir, state, nil)
	eventually(t, "the notes on the server", onServer(t, srv, abc))
	eventually(t, "the repo idle", func() bool { r, _ := n.repoStatus(dir); return r.State == StateIdle })
	return n
}

// TestTeamDirSwappedForSymlink replaces the team directory with a symlink
// to another directory and writes through it: the daemon follows the link
// at once, long before a rescan would.
func TestTeamDirSwappedForSymlink(t *testing.T) {
	for _, tc := range []struct {
		name  string
		notes map[string]string // what the link's target holds
	}{
		{"to a copy of the notes", abc},
		{"to an empty directory", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bubble(t, func(t *testing.T) {
				srv := startServer(t)
				dir, _ := syncedRepo(t, srv, t.TempDir())
				other := filepath.Join(t.TempDir(), "elsewhere")
				if err := os.Mkdir(other, 0o755); err != nil {
					t.Fatal(err)
				}
				for k, v := range tc.notes {
					write(t, other, k, v)
				}
				if err := os.RemoveAll(dir); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(other, dir); err != nil {
					t.Fatal(err)
				}
				write(t, dir, "through.md", "written through the link\n")
				eventually(t, "through.md on the server", onServer(t, srv, map[string]string{"through.md": "written through the link\n"}))
				eventually(t, "the notes in the link's target", notesIn(other, abc))
				if got := serverEntries(t, srv); len(got) != 4 {
					t.Errorf("server holds %v, want the three notes and through.md", keysOf(got))
				}
				write(t, dir, "a.md", "edited through the link\n")
				eventually(t, "the edit on the server", onServer(t, srv, map[string]string{"a.md": "edited through the link\n"}))
			})
		})
	}
}

// TestTeamDirMissingShownInStatus deletes the team directory: nothing is
// deleted on the server or recreated on disk, and the status says the
// directory is missing, also after a restart.
func TestTeamDirMissingShownInStatus(t *testing.T) { bubble(t, testTeamDirMissingShownInStatus) }

func testTeamDirMissingShownInStatus(t *testing.T) {
	srv := startServer(t)
	state := t.TempDir()
	dir, n := syncedRepo(t, srv, state)
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	missing := func(n *node) func() bool {
		return func() bool {
			r, _ := n.repoStatus(dir)
			return r.State == StateMissing && strings.Contains(r.Missing, "team directory "+dir+" is missing") &&
				strings.Contains(r.Missing, "recreate it and the notes are restored from the server")
		}
	}
	eventually(t, "the status to say the directory is missing", missing(n))
	n.stop(t)
	n = startRepo(t, srv, dir, state, nil)
	eventually(t, "the status to say the directory is missing after a restart", missing(n))
	if _, err := os.Lstat(dir); !os.IsNotExist(err) {
		t.Errorf("team directory after a restart: %v, want it still missing", err)
	}
	if got := serverEntries(t, srv); len(got) != 3 {
		t.Errorf("server holds %v, want the three notes", keysOf(got))
	}
}

// TestTeamDirRecreatedSyncs deletes the team directory and recreates it
// with a new note: the server's notes, a teammate's new one among them,
// come back and the new note is pushed, whether the daemon ran throughout
// or was restarted while the directory was missing.
func TestTeamDirRecreatedSyncs(t *testing.T) {
	for _, restart := range []bool{false, true} {
		t.Run(map[bool]string{false: "running", true: "restarted"}[restart], func(t *testing.T) {
			bubble(t, func(t *testing.T) {
				srv := startServer(t)
				state := t.TempDir()
				dir, n := syncedRepo(t, srv, state)
				if err := os.RemoveAll(dir); err != nil {
					t.Fatal(err)
				}
				eventually(t, "the daemon to see the directory gone", func() bool { r, _ := n.repoStatus(dir); return r.State != StateIdle })
				newTeammate(t, srv).write(t, "e.md", "from a teammate\n")
				if restart {
					n.stop(t)
					n = startRepo(t, srv, dir, state, nil)
				}
				write(t, dir, "new.md", "written after the directory came back\n")
				eventually(t, "new.md on the server", onServer(t, srv, map[string]string{"new.md": "written after the directory came back\n"}))
				restored := map[string]string{"e.md": "from a teammate\n"}
				for k, v := range abc {
					restored[k] = v
				}
				eventually(t, "the server's notes restored", notesIn(dir, restored))
				eventually(t, "the repo idle", func() bool { r, _ := n.repoStatus(dir); return r.State == StateIdle })
				if got := serverEntries(t, srv); len(got) != 5 {
					t.Errorf("server holds %v, want the four notes and new.md", keysOf(got))
				}
			})
		})
	}
}

// TestTeamDirEmptiedRestored deletes every note but keeps the directory:
// that is not taken for their deletion, the notes come back.
func TestTeamDirEmptiedRestored(t *testing.T) { bubble(t, testTeamDirEmptiedRestored) }

func testTeamDirEmptiedRestored(t *testing.T) {
	srv := startServer(t)
	dir, n := syncedRepo(t, srv, t.TempDir())
	for k := range abc {
		if err := os.Remove(filepath.Join(dir, k)); err != nil {
			t.Fatal(err)
		}
	}
	eventually(t, "the notes restored", notesIn(dir, abc))
	eventually(t, "the repo idle", func() bool { r, _ := n.repoStatus(dir); return r.State == StateIdle })
	if got := serverEntries(t, srv); len(got) != 3 {
		t.Errorf("server holds %v, want the three notes", keysOf(got))
	}
}

// TestMassDeletionHeldBackOthersSync deletes two of three notes and makes
// other changes: the deletions are held back and shown with the command
// that sends them, everything else pushes and pulls, before and after a
// restart.
func TestMassDeletionHeldBackOthersSync(t *testing.T) { bubble(t, testMassDeletionHeldBackOthersSync) }

func testMassDeletionHeldBackOthersSync(t *testing.T) {
	srv := startServer(t)
	state := t.TempDir()
	dir, n := syncedRepo(t, srv, state)
	for _, k := range []string{"a.md", "b.md"} {
		if err := os.Remove(filepath.Join(dir, k)); err != nil {
			t.Fatal(err)
		}
	}
	write(t, dir, "c.md", "c edited\n")
	write(t, dir, "new.md", "new\n")
	eventually(t, "the edit and the new note on the server", onServer(t, srv, map[string]string{"c.md": "c edited\n", "new.md": "new\n"}))
	mate := newTeammate(t, srv)
	mate.write(t, "e.md", "from a teammate\n")
	eventually(t, "the teammate's note pulled", fileIs(filepath.Join(dir, "e.md"), "from a teammate\n"))
	fix := "teammemd sync --allow-mass-delete --dir " + dir + " --repo " + slug
	held := func(n *node) func() bool {
		return func() bool {
			r, _ := n.repoStatus(dir)
			return r.State == StateHeld && strings.Contains(r.MassDeletion, fix) &&
				slices.Equal(r.HeldDeletions, []string{"a.md", "b.md"}) && len(r.Pending) == 0
		}
	}
	eventually(t, "the held-back deletions in the status", held(n))

	n.stop(t)
	n = startRepo(t, srv, dir, state, nil)
	eventually(t, "the held-back deletions in the status after a restart", held(n))
	write(t, dir, "c.md", "c edited again\n")
	eventually(t, "the next edit on the server", onServer(t, srv, map[string]string{"c.md": "c edited again\n"}))
	if got := serverEntries(t, srv); got["a.md"] != "a\n" || got["b.md"] != "b\n" {
		t.Errorf("server holds %v, want a.md and b.md kept", keysOf(got))
	}
}

func keysOf(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// An emptied team directory gets the server's notes back by a push, which
// logs what it wrote there as a pull does: the log does not stay silent
// while the directory fills again.
func TestTeamDirEmptiedRestoredIsLogged(t *testing.T) {
	bubble(t, testTeamDirEmptiedRestoredIsLogged)
}

func testTeamDirEmptiedRestoredIsLogged(t *testing.T) {
	srv := startServer(t)
	dir := filepath.Join(t.TempDir(), "team")
	for k, v := range abc {
		write(t, dir, k, v)
	}
	logs := newLogRecorder()
	n := startRepo(t, srv, dir, t.TempDir(), func(o *Options) { o.Logger = slog.New(logs) })
	eventually(t, "the notes on the server", onServer(t, srv, abc))
	n.settles(t, dir, "the repo idle", func(r RepoStatus) bool { return r.State == StateIdle })
	before := logs.count("pulled")
	for k := range abc {
		if err := os.Remove(filepath.Join(dir, k)); err != nil {
			t.Fatal(err)
		}
	}
	eventually(t, "the notes restored", notesIn(dir, abc))
	n.settles(t, dir, "the repo idle", func(r RepoStatus) bool { return r.State == StateIdle })
	if got := logs.count("pulled"); got != before+1 {
		t.Errorf("pulled logged %d times while the notes came back, want once", got-before)
	}
}
