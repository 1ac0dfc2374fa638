package memsync

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/teammemd/teammemd/server/servertest"
)

// syncedPeers returns two peers that both hold a.md, b.md, c.md and d.md.
func syncedPeers(t *testing.T, srv *servertest.Server) (a, b *peer) {
	t.Helper()
	a = newPeer(t, srv.URL, srv.Token, nil)
	b = newPeer(t, srv.URL, srv.Token, nil)
	for _, k := range []string{"a.md", "b.md", "c.md", "d.md"} {
		a.write(t, k, k+"\n")
	}
	a.sync(t)
	b.sync(t)
	return a, b
}

func TestMissingTeamDirTouchesNothing(t *testing.T) {
	srv := servertest.Start(t)
	a, _ := syncedPeers(t, srv)
	state, err := os.ReadFile(a.eng.StatePath())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(a.dir); err != nil {
		t.Fatal(err)
	}
	var dm *DirMissingError
	if _, err := a.eng.Sync(context.Background()); !errors.As(err, &dm) || dm.Synced != 4 {
		t.Fatalf("Sync with the team directory missing = %v, want a DirMissingError with 4 files synced", err)
	}
	if _, err := os.Lstat(a.dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("team directory after Sync: %v, want it still missing", err)
	}
	if got := len(serverEntries(t, srv)); got != 4 {
		t.Errorf("server holds %d entries, want 4", got)
	}
	if after, err := os.ReadFile(a.eng.StatePath()); err != nil || string(after) != string(state) {
		t.Errorf("state file changed by a Sync with the team directory missing (err %v)", err)
	}
}

// TestRecreatedTeamDirRestoresAndPushes deletes the team directory and
// recreates it with one new note: the server's notes come back, teammates'
// new notes too, and the new note is pushed, by the engine that saw the
// directory missing and by one that starts afresh on the same state.
func TestRecreatedTeamDirRestoresAndPushes(t *testing.T) {
	for _, restart := range []bool{false, true} {
		name := "same engine"
		if restart {
			name = "new engine"
		}
		t.Run(name, func(t *testing.T) {
			srv := servertest.Start(t)
			a, b := syncedPeers(t, srv)
			if err := os.RemoveAll(a.dir); err != nil {
				t.Fatal(err)
			}
			if _, err := a.eng.Sync(context.Background()); err == nil {
				t.Fatal("Sync with the team directory missing = nil, want an error")
			}
			b.write(t, "e.md", "from b\n")
			b.sync(t)
			if err := os.Mkdir(a.dir, 0o755); err != nil {
				t.Fatal(err)
			}
			a.write(t, "new.md", "written after the directory came back\n")
			if restart {
				a.eng = newTestEngine(t, srv.URL, srv.Token, a.dir, a.state, nil)
			}
			rep, err := a.eng.Sync(context.Background())
			if err != nil {
				t.Fatalf("Sync in the recreated directory = %v, want nil", err)
			}
			for _, k := range []string{"a.md", "b.md", "c.md", "d.md"} {
				if got := a.read(t, k); got != k+"\n" {
					t.Errorf("%s = %q, want it restored from the server", k, got)
				}
			}
			if got := a.read(t, "e.md"); got != "from b\n" {
				t.Errorf("e.md = %q, want the teammate's new note", got)
			}
			if got := serverEntries(t, srv); len(got) != 6 || got["new.md"] != "written after the directory came back\n" {
				t.Errorf("server holds %v, want the 5 notes and new.md", keysOf(got))
			}
			if len(rep.SoftDeleted) != 0 {
				t.Errorf("SoftDeleted = %v, want none", rep.SoftDeleted)
			}
		})
	}
}

// TestEmptiedTeamDirRestored empties the team directory without removing
// it: nothing is deleted on the server, the notes come back.
func TestEmptiedTeamDirRestored(t *testing.T) {
	srv := servertest.Start(t)
	a, _ := syncedPeers(t, srv)
	for _, k := range []string{"a.md", "b.md", "c.md", "d.md"} {
		if err := os.Remove(filepath.Join(a.dir, k)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := a.eng.Push(context.Background()); err != nil {
		t.Fatalf("Push from an emptied directory = %v, want nil", err)
	}
	if got := len(serverEntries(t, srv)); got != 4 {
		t.Errorf("server holds %d entries, want 4", got)
	}
	for _, k := range []string{"a.md", "b.md", "c.md", "d.md"} {
		if got := a.read(t, k); got != k+"\n" {
			t.Errorf("%s = %q, want it restored from the server", k, got)
		}
	}
}

// TestMassDeletionHeldBackOthersSync deletes three of four synced notes,
// edits the fourth and adds one: the deletions are held back, everything
// else is pushed and pulled, and --allow-mass-delete sends them.
func TestMassDeletionHeldBackOthersSync(t *testing.T) {
	srv := servertest.Start(t)
	a, b := syncedPeers(t, srv)
	for _, k := range []string{"a.md", "b.md", "c.md"} {
		if err := os.Remove(filepath.Join(a.dir, k)); err != nil {
			t.Fatal(err)
		}
	}
	a.write(t, "d.md", "d edited\n")
	a.write(t, "new.md", "new\n")
	b.write(t, "e.md", "from b\n")
	b.sync(t)
	rep, err := a.eng.Sync(context.Background())
	var me *MassDeletionError
	// Five synced files: the pull brought e.md first.
	if !errors.As(err, &me) || me.Missing != 3 || me.Known != 5 {
		t.Fatalf("Sync after deleting 3 of 4 = %v, want MassDeletionError 3 of 5", err)
	}
	if want := []string{"a.md", "b.md", "c.md"}; !slices.Equal(rep.HeldDeletions, want) {
		t.Errorf("HeldDeletions = %v, want %v", rep.HeldDeletions, want)
	}
	if want := []string{"d.md", "new.md"}; !slices.Equal(rep.Pushed, want) {
		t.Errorf("Pushed = %v, want %v", rep.Pushed, want)
	}
	want := map[string]string{"a.md": "a.md\n", "b.md": "b.md\n", "c.md": "c.md\n", "d.md": "d edited\n", "new.md": "new\n", "e.md": "from b\n"}
	got := serverEntries(t, srv)
	for k, v := range want {
		if got[k] != v {
			t.Errorf("server %s = %q, want %q", k, got[k], v)
		}
	}
	if got := a.read(t, "e.md"); got != "from b\n" {
		t.Errorf("e.md = %q, want the teammate's note pulled", got)
	}
	if got := a.read(t, "a.md"); got != "<missing>" {
		t.Errorf("a.md = %q, want it left deleted locally", got)
	}
	rep, err = a.eng.Sync(context.Background())
	if !errors.As(err, &me) || rep.PUTs != 0 || len(rep.HeldDeletions) != 3 {
		t.Errorf("next Sync = %v with %d PUTs, %v held; want the same refusal, nothing sent; %+v", err, rep.PUTs, rep.HeldDeletions, rep)
	}
	if keys, err := a.eng.Unsent(); err != nil || len(keys) != 0 {
		t.Errorf("Unsent() = %v, %v; want nothing (the deletions are held back, not pending)", keys, err)
	}

	allow, err := New(Config{Dir: a.dir, Repo: testRepo, Server: srv.URL, StateDir: a.state, AllowMassDelete: true},
		Options{Client: testClient(t, srv.URL, srv.Token)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := allow.Sync(context.Background()); err != nil {
		t.Fatalf("Sync with AllowMassDelete = %v, want nil", err)
	}
	if got := serverEntries(t, srv); len(got) != 3 {
		t.Errorf("server holds %v after the allowed deletion, want d.md, e.md and new.md", keysOf(got))
	}
}

// A team directory the engine creates on a first sync, and one created
// for a first note, are the user's alone (0700), as is the directory
// discovery creates for a Claude Code project.
func TestCreatedTeamDirIsPrivate(t *testing.T) {
	srv := servertest.Start(t)
	synced := filepath.Join(t.TempDir(), "memory", "team")
	eng := newTestEngine(t, srv.URL, srv.Token, synced, t.TempDir(), nil)
	if _, err := eng.Sync(context.Background()); err != nil {
		t.Fatalf("Sync into a team directory that does not exist: %v", err)
	}
	noted := filepath.Join(t.TempDir(), "memory", "team")
	if _, err := NewNotes(noted, realScanner(t)).Write(context.Background(), "a.md", []byte("a\n"), ""); err != nil {
		t.Fatalf("Write into a team directory that does not exist: %v", err)
	}
	for _, dir := range []string{synced, filepath.Dir(synced), noted, filepath.Dir(noted)} {
		fi, err := os.Stat(dir)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != TeamDirMode {
			t.Errorf("mode of created %s = %04o, want %04o", dir, got, TeamDirMode)
		}
	}
}
