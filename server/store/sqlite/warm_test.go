package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/store"
)

// warmRepo opens a store whose repo acme/app holds n notes.
func warmRepo(t *testing.T, n int) (*Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), FileName)
	s := mustOpen(t, path)
	entries := map[string]string{}
	for i := range n {
		entries[fmt.Sprintf("notes/%03d.md", i)] = fmt.Sprint("note ", i)
	}
	mustApply(t, s, store.Write{Repo: "acme/app", Entries: entries, Subject: "alice"})
	return s, path
}

// revisionsOf counts the history rows of repo.
func revisionsOf(t *testing.T, s *Store, repo string) int {
	t.Helper()
	n := 0
	err := s.History(context.Background(), store.HistoryQuery{Repo: repo, Limit: 1000, NoContent: true}, func(r store.Revision) error {
		if r.Subject == warmSubject {
			t.Errorf("history holds a revision of the warm-up: %+v", r)
		}
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestWarmWriteCommitsNothing(t *testing.T) {
	s, path := warmRepo(t, 9)
	ctx := context.Background()
	before, err := s.Snapshot(ctx, "acme/app", true)
	if err != nil {
		t.Fatal(err)
	}
	ran, err := s.warm(ctx, "acme/app")
	if !ran || err != nil {
		t.Fatalf("warm() = %v, %v; want a warm-up played through", ran, err)
	}
	check := func(s *Store, when string) {
		after, err := s.Snapshot(ctx, "acme/app", true)
		if err != nil {
			t.Fatal(err)
		}
		if after.Version != before.Version || after.Checksum != before.Checksum || fmt.Sprint(after.Entries) != fmt.Sprint(before.Entries) {
			t.Errorf("%s: repo at version %d, %s, %v; want it as before the warm-up: %d, %s, %v", when,
				after.Version, after.Checksum, after.Entries, before.Version, before.Checksum, before.Entries)
		}
		if n := revisionsOf(t, s, "acme/app"); n != 9 {
			t.Errorf("%s: %d revisions, want the 9 written", when, n)
		}
	}
	check(s, "after the warm-up")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	check(mustOpen(t, path), "reopened")
}

func TestWarmWriteThenWrite(t *testing.T) {
	s, _ := warmRepo(t, 9)
	ctx := context.Background()
	if ran, err := s.warm(ctx, "acme/app"); !ran || err != nil {
		t.Fatalf("warm() = %v, %v", ran, err)
	}
	key := "notes/004.md" // the key in the middle, the one the warm-up played
	r := mustApply(t, s, store.Write{Repo: "acme/app", Entries: map[string]string{key: "edited"}, Subject: "bob"})
	snap, err := s.Snapshot(ctx, "acme/app", true)
	if err != nil {
		t.Fatal(err)
	}
	if snap.Version != 2 || r.Checksum != snap.Checksum || snap.Entries[key] != "edited" {
		t.Errorf("after the write: version %d, checksum %s (write said %s), %s = %q; want version 2 and the write's value",
			snap.Version, snap.Checksum, r.Checksum, key, snap.Entries[key])
	}
	if n := revisionsOf(t, s, "acme/app"); n != 10 {
		t.Errorf("%d revisions, want 10", n)
	}
}

func TestWarmWriteSkipped(t *testing.T) {
	s, _ := warmRepo(t, 3)
	ctx := context.Background()
	if ran, err := s.warm(ctx, "acme/other"); !ran || err != nil {
		t.Errorf("warm(a repo never written) = %v, %v; want it run, with nothing to play", ran, err)
	}
	if _, err := s.Snapshot(ctx, "acme/other", false); err == nil {
		t.Error("the warm-up of a repo never written created it")
	}
	release, wait := holdCommit(t, s)
	if ran, _ := s.warm(ctx, "acme/app"); ran {
		t.Error("warm() ran while a commit was under way")
	}
	release()
	if err := wait(); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if ran, _ := s.warm(ctx, "acme/app"); ran {
		t.Error("warm() ran on a closed store")
	}
}

// TestWarmWriteGivesWay holds a warm-up in its history insert, sends a
// write, and lets the warm-up go once the write waits: the write's
// arrival must have cut the warm-up short, and the write commits.
func TestWarmWriteGivesWay(t *testing.T) {
	s, _ := warmRepo(t, 9)
	ctx := context.Background()
	g := &gate{entered: make(chan struct{}), release: make(chan struct{})}
	testGates.Store(t.Name(), g)
	t.Cleanup(func() { testGates.Delete(t.Name()) })
	trigger := fmt.Sprintf(`CREATE TEMP TRIGGER gate BEFORE INSERT ON revisions
		WHEN NEW.subject = '%s' BEGIN SELECT test_gate('%s'); END`, warmSubject, t.Name())
	if _, err := s.wdb.ExecContext(ctx, trigger); err != nil {
		t.Fatal(err)
	}
	var warmErr error
	var wg sync.WaitGroup
	wg.Go(func() { _, warmErr = s.warm(ctx, "acme/app") })
	<-g.entered
	wrote := make(chan error, 1)
	go func() {
		_, err := s.Apply(ctx, store.Write{Repo: "acme/app", Entries: map[string]string{"late.md": "L"}, Time: t0, Subject: "bob"})
		wrote <- err
	}()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		s.writers.mu.Lock()
		waiting := len(s.writers.pending)
		s.writers.mu.Unlock()
		if waiting > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the write never queued")
		}
	}
	close(g.release)
	wg.Wait()
	if warmErr == nil {
		t.Error("the warm-up played its write through; want it cut short by the write that came")
	}
	if err := <-wrote; err != nil {
		t.Fatalf("the write after the warm-up: %v", err)
	}
	snap, err := s.Snapshot(ctx, "acme/app", true)
	if err != nil {
		t.Fatal(err)
	}
	if snap.Version != 2 || snap.Entries["late.md"] != "L" || len(snap.Entries) != 10 {
		t.Errorf("repo at version %d with %d entries; want version 2, the 9 notes and late.md", snap.Version, len(snap.Entries))
	}
	if n := revisionsOf(t, s, "acme/app"); n != 10 {
		t.Errorf("%d revisions, want 10", n)
	}
}

// TestWarmWriteBesideWrites runs warm-ups and writes together (for the
// race detector): every write commits, in order, and no warm-up leaves
// anything behind.
func TestWarmWriteBesideWrites(t *testing.T) {
	s, _ := warmRepo(t, 20)
	ctx := context.Background()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
				s.WarmWrite(ctx, "acme/app")
			}
		}
	})
	for i := range 50 {
		mustApply(t, s, store.Write{Repo: "acme/app", Entries: map[string]string{fmt.Sprintf("notes/%03d.md", i%20): fmt.Sprint("edit ", i)}, Subject: "bob"})
	}
	close(stop)
	wg.Wait()
	snap, err := s.Snapshot(ctx, "acme/app", true)
	if err != nil {
		t.Fatal(err)
	}
	if snap.Version != 51 || snap.Entries["notes/009.md"] != "edit 49" {
		t.Errorf("version %d, notes/009.md = %q; want 51 and the last edit", snap.Version, snap.Entries["notes/009.md"])
	}
	if n := revisionsOf(t, s, "acme/app"); n != 70 {
		t.Errorf("%d revisions, want 70", n)
	}
}
