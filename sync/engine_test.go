package memsync

import (
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/teammemd/teammemd/scan"
	"github.com/teammemd/teammemd/server/servertest"
	"github.com/teammemd/teammemd/sync/fsio"
)

func TestTwoClientsConverge(t *testing.T) {
	srv := servertest.Start(t)
	a := newPeer(t, srv.URL, srv.Token, nil)
	b := newPeer(t, srv.URL, srv.Token, nil)
	a.write(t, "MEMORY.md", "# team\n")
	a.write(t, "sub/notes.md", "notes\n")
	a.write(t, "keep.txt", "keep\n")
	a.write(t, ".hidden.md", "never\n")
	a.write(t, "image.png", "never\n")
	if got := a.sync(t).Pushed; len(got) != 3 {
		t.Fatalf("first Sync pushed %v, want 3 keys", got)
	}
	if got := b.sync(t).Pulled; len(got) != 3 {
		t.Fatalf("second peer pulled %v, want 3 keys", got)
	}
	b.write(t, "MEMORY.md", "# team, edited\n")
	if err := os.Remove(filepath.Join(b.dir, "keep.txt")); err != nil {
		t.Fatal(err)
	}
	rep := b.sync(t)
	if len(rep.Pushed) != 1 || len(rep.SoftDeleted) != 1 {
		t.Fatalf("edit Sync = pushed %v removed %v, want 1 and 1", rep.Pushed, rep.SoftDeleted)
	}
	rep = a.sync(t)
	if got, want := a.read(t, "MEMORY.md"), "# team, edited\n"; got != want {
		t.Errorf("MEMORY.md = %q, want %q", got, want)
	}
	if got := a.read(t, "keep.txt"); got != "<missing>" {
		t.Errorf("keep.txt = %q after a teammate deleted it, want it deleted", got)
	}
	if rep.Checksum != b.eng.Checksum() {
		t.Errorf("checksums differ after converging: %s vs %s", rep.Checksum, b.eng.Checksum())
	}
	if got := serverEntries(t, srv); len(got) != 2 || got[".hidden.md"] != "" {
		t.Errorf("server holds %v, want MEMORY.md and sub/notes.md", got)
	}
	if rep := a.sync(t); !rep.NotModified || rep.PUTs != 0 {
		t.Errorf("idle Sync = %+v, want 304 and no PUT", rep)
	}
}

func TestSecretNeverReachesServer(t *testing.T) {
	sc, err := scan.New(scan.Config{})
	if err != nil {
		t.Fatalf("scan.New: %v", err)
	}
	srv := servertest.Start(t)
	a := newPeer(t, srv.URL, srv.Token, sc)
	secret := "ghp_" + strings.Repeat("aB3dE6gH9j", 3) + "kL2mN7"
	a.write(t, "creds.md", "token: "+secret+"\n")
	a.write(t, "fine.md", "nothing secret\n")
	rep := a.sync(t)
	if len(rep.Blocked) != 1 || rep.Blocked[0].Key != "creds.md" || len(rep.Blocked[0].RuleIDs) == 0 {
		t.Fatalf("Blocked = %+v, want creds.md with rule ids", rep.Blocked)
	}
	for _, b := range rep.Blocked {
		for _, id := range b.RuleIDs {
			if strings.Contains(id, secret) {
				t.Errorf("Blocked leaks the secret")
			}
		}
	}
	entries := serverEntries(t, srv)
	if _, ok := entries["creds.md"]; ok || entries["fine.md"] == "" {
		t.Errorf("server entries %v, want fine.md only", keysOf(entries))
	}
}

func TestPullConflictKeepsLocalEdit(t *testing.T) {
	srv := servertest.Start(t)
	a := newPeer(t, srv.URL, srv.Token, nil)
	b := newPeer(t, srv.URL, srv.Token, nil)
	rep := pullConflict(t, a, b)
	if got := b.read(t, "x.md"); got != "from a\n" {
		t.Errorf("x.md = %q, want the server's version", got)
	}
	assertConflict(t, rep, "x.md", "from b\n")
	if got := serverEntries(t, srv)["x.md"]; got != "from a\n" {
		t.Errorf("server x.md = %q, want %q", got, "from a\n")
	}
}

// pullConflict has a and b edit x.md after both synced it, a first, and
// returns b's report of the sync that finds a's edit.
func pullConflict(t *testing.T, a, b *peer) Report {
	t.Helper()
	a.write(t, "x.md", "v1\n")
	a.sync(t)
	b.sync(t)
	a.write(t, "x.md", "from a\n")
	a.sync(t)
	b.write(t, "x.md", "from b\n")
	return b.sync(t)
}

func TestPushConflictAfter412KeepsBoth(t *testing.T) {
	srv := servertest.Start(t)
	a := newPeer(t, srv.URL, srv.Token, nil)
	b := newPeer(t, srv.URL, srv.Token, nil)
	a.write(t, "x.md", "v1\n")
	a.sync(t)
	b.sync(t)
	ctx := context.Background()
	if _, err := b.eng.Pull(ctx); err != nil {
		t.Fatal(err)
	}
	a.write(t, "x.md", "from a\n")
	a.write(t, "new.md", "new from a\n")
	a.sync(t)
	b.write(t, "x.md", "from b\n")
	b.write(t, "other.md", "other from b\n")
	rep, err := b.eng.Push(ctx)
	if err != nil {
		t.Fatalf("Push: %v", err)
	}
	assertConflict(t, rep, "x.md", "from b\n")
	if got := b.read(t, "new.md"); got != "new from a\n" {
		t.Errorf("new.md = %q, want the teammate's file", got)
	}
	entries := serverEntries(t, srv)
	if entries["x.md"] != "from a\n" || entries["other.md"] != "other from b\n" {
		t.Errorf("server x.md=%q other.md=%q, want a's x.md and b's other.md", entries["x.md"], entries["other.md"])
	}
}

func assertConflict(t *testing.T, rep Report, key, content string) {
	t.Helper()
	if len(rep.Conflicts) != 1 || rep.Conflicts[0].Key != key || rep.Conflicts[0].Source != "local" {
		t.Fatalf("Conflicts = %+v, want one local copy of %s", rep.Conflicts, key)
	}
	data, err := os.ReadFile(rep.Conflicts[0].Path)
	if err != nil || string(data) != content {
		t.Errorf("conflict copy = %q, %v; want %q", data, err, content)
	}
}

func TestStateLossLosesNothing(t *testing.T) {
	for _, tc := range []struct {
		name  string
		spoil func(path string) error
	}{
		{"missing", os.Remove},
		{"corrupt", func(p string) error {
			return os.WriteFile(p, []byte(`{"format":1,"serverChecksums":{"../x":"y"}`), 0o600)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := servertest.Start(t)
			a := newPeer(t, srv.URL, srv.Token, nil)
			b := newPeer(t, srv.URL, srv.Token, nil)
			a.write(t, "x.md", "v1\n")
			a.write(t, "y.md", "y\n")
			a.sync(t)
			b.sync(t)
			b.write(t, "x.md", "teammate\n")
			b.sync(t)
			a.write(t, "x.md", "unpushed local\n")
			if err := tc.spoil(a.eng.StatePath()); err != nil {
				t.Fatal(err)
			}
			rep := a.sync(t)
			assertConflict(t, rep, "x.md", "unpushed local\n")
			if got := a.read(t, "y.md"); got != "y\n" {
				t.Errorf("y.md = %q, want it kept", got)
			}
			if got := serverEntries(t, srv); len(got) != 2 || got["x.md"] != "teammate\n" {
				t.Errorf("server = %v, want both keys, x.md from the teammate", got)
			}
		})
	}
}

func TestMassDeletionRefused(t *testing.T) {
	srv := servertest.Start(t)
	a := newPeer(t, srv.URL, srv.Token, nil)
	for _, k := range []string{"a.md", "b.md", "c.md", "d.md"} {
		a.write(t, k, k)
	}
	a.sync(t)
	for _, k := range []string{"a.md", "b.md", "c.md"} {
		os.Remove(filepath.Join(a.dir, k))
	}
	_, err := a.eng.Sync(context.Background())
	var me *MassDeletionError
	if !errors.As(err, &me) || me.Missing != 3 || me.Known != 4 {
		t.Fatalf("Sync after deleting 3 of 4 = %v, want MassDeletionError 3 of 4", err)
	}
	if err := os.RemoveAll(a.dir); err != nil {
		t.Fatal(err)
	}
	_, err = a.eng.Sync(context.Background())
	var dm *DirMissingError
	if !errors.As(err, &dm) || dm.Synced != 4 {
		t.Fatalf("Sync with the team dir gone = %v, want DirMissingError with 4 files synced", err)
	}
	if got := serverEntries(t, srv); len(got) != 4 {
		t.Errorf("server holds %d entries, want 4", len(got))
	}
}

func TestConcurrentSyncIsSerialized(t *testing.T) {
	srv := servertest.Start(t)
	a := newPeer(t, srv.URL, srv.Token, nil)
	second := newTestEngine(t, srv.URL, srv.Token, a.dir, a.state, nil)
	for i := range 20 {
		a.write(t, "k"+string(rune('a'+i))+".md", strings.Repeat("x", i+1))
	}
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, e := range []*Engine{a.eng, second} {
		wg.Go(func() { _, errs[i] = e.Sync(context.Background()) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("Sync %d: %v", i, err)
		}
	}
	rep := a.sync(t)
	if rep.PUTs != 0 || len(serverEntries(t, srv)) != 20 {
		t.Errorf("after both syncs: %d PUTs, %d entries; want 0 and 20", rep.PUTs, len(serverEntries(t, srv)))
	}
	lock, err := fsio.AcquireLock(context.Background(), a.eng.lockPath)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Release()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if _, err := second.Sync(ctx); !errors.Is(err, ErrLocked) {
		t.Errorf("Sync while locked = %v, want ErrLocked", err)
	}
}

// keysOf returns m's keys, sorted.
func keysOf(m map[string]string) []string {
	return slices.Sorted(maps.Keys(m))
}

func TestDirMissingErrorSaysWhatToDo(t *testing.T) {
	tests := []struct {
		err  DirMissingError
		want string
	}{
		{DirMissingError{Dir: "/home/u/team", Synced: 3},
			"team directory /home/u/team is missing, but 3 files were synced from it: nothing is synced or deleted on the server until it exists again (recreate it and the notes are restored from the server)"},
		{DirMissingError{Dir: "/home/u/team", Synced: 1, NotDir: true},
			"team directory /home/u/team is not a directory, but 1 file was synced from it: nothing is synced or deleted on the server until it exists again (recreate it and the notes are restored from the server)"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %s, want %s", got, tt.want)
		}
	}
}

func TestMassDeletionErrorNamesTheSyncCommand(t *testing.T) {
	tests := []struct {
		err  MassDeletionError
		want string
	}{
		{MassDeletionError{Repo: "acme/app", Dir: "/home/u/team", Missing: 3, Known: 4},
			"3 of 4 synced files are gone from /home/u/team; refusing to delete them on the server (to put them back as the server holds them, run: teammemd sync --restore-deleted --dir /home/u/team --repo acme/app; to delete them there too: teammemd sync --allow-mass-delete --dir /home/u/team --repo acme/app)"},
		{MassDeletionError{Repo: "acme/app", Dir: "/home/u/it's team", Missing: 2, Known: 2},
			"2 of 2 synced files are gone from /home/u/it's team; refusing to delete them on the server (to put them back as the server holds them, run: teammemd sync --restore-deleted --dir '/home/u/it'\\''s team' --repo acme/app; to delete them there too: teammemd sync --allow-mass-delete --dir '/home/u/it'\\''s team' --repo acme/app)"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %s, want %s", got, tt.want)
		}
	}
}
