package sqlite

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/teammemd/teammemd/server/store"
)

// TestBackup copies a database a store holds open and keeps writing to:
// the backup opens as a store with every write acknowledged before it
// began, the same identity, mode 0600, and nothing left beside it; a
// second backup to the same name is refused and leaves the first as it
// was.
func TestBackup(t *testing.T) {
	ctx := context.Background()
	s, path := warmRepo(t, 50)
	mustApply(t, s, store.Write{Repo: "acme/app", Entries: map[string]string{"notes/001.md": "edited"}, Deletes: []string{"notes/002.md"}, Subject: "bob"})
	mustApply(t, s, store.Write{Repo: "acme/web", Entries: map[string]string{"a.md": "a"}, Subject: "bob"})
	id, err := s.StoreID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Go(func() { // a server's writes meanwhile
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := s.Apply(ctx, store.Write{Repo: "acme/busy", Entries: map[string]string{"n.md": fmt.Sprint(i)}, Subject: "carol", Time: t0, MaxEntries: 10}); err != nil {
				t.Errorf("a write during the backup: %v", err)
				return
			}
		}
	})
	dir := t.TempDir()
	dst := filepath.Join(dir, "backup.db")
	info, err := Backup(ctx, path, dst)
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatalf("Backup = %v", err)
	}
	if info.StoreID != id || info.Repos < 2 || info.Entries < 50 || info.Bytes <= 0 {
		t.Errorf("Backup info = %+v, want identity %s, at least 2 repos and 50 entries", info, id)
	}
	if fi, err := os.Stat(dst); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("backup file: %v, %v; want mode 0600", fi, err)
	}
	if names := dirNames(t, dir); len(names) != 1 {
		t.Errorf("the backup's directory holds %v, want the backup alone", names)
	}
	b := mustOpen(t, dst)
	snap, err := b.Snapshot(ctx, "acme/app", true)
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Entries) != 49 || snap.Entries["notes/001.md"] != "edited" {
		t.Errorf("the backup's acme/app holds %d entries, notes/001.md %q; want 49 and the edit", len(snap.Entries), snap.Entries["notes/001.md"])
	}
	if got, err := b.StoreID(ctx); err != nil || got != id {
		t.Errorf("the backup's identity = %q, %v; want %s", got, err, id)
	}
	before, err := os.ReadFile(dst)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Backup(ctx, path, dst); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Errorf("a second Backup to %s = %v, want it refused", dst, err)
	}
	if after, _ := os.ReadFile(dst); string(after) != string(before) {
		t.Error("a refused backup changed the file it was refused for")
	}
}

// A backup of a file that is not a teammemd database fails, and leaves
// nothing behind.
func TestBackupOfNoDatabase(t *testing.T) {
	src := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(src, []byte("not a database"), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := Backup(context.Background(), src, filepath.Join(dir, "b.db")); err == nil {
		t.Error("Backup of a text file succeeded")
	}
	if _, err := Backup(context.Background(), filepath.Join(dir, "missing.db"), filepath.Join(dir, "b.db")); err == nil {
		t.Error("Backup of a missing file succeeded")
	}
	if names := dirNames(t, dir); len(names) != 0 {
		t.Errorf("failed backups left %v", names)
	}
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

// A backup made after a purge holds none of the purged bytes.
func TestBackupAfterPurge(t *testing.T) {
	s, path := warmRepo(t, 5)
	const marker = "SECRET-Bk9Bk9Bk9"
	mustApply(t, s, store.Write{Repo: "acme/app", Entries: map[string]string{"a.md": strings.Repeat(marker+" ", 2000)}, Subject: "ann"})
	mustApply(t, s, store.Write{Repo: "acme/app", Entries: map[string]string{"a.md": "fixed"}, Subject: "ann"})
	seen := t.TempDir()
	if _, err := Backup(context.Background(), path, filepath.Join(seen, "b.db")); err != nil {
		t.Fatal(err)
	}
	if got := filesHolding(t, seen, marker); len(got) == 0 {
		t.Fatal("a backup before the purge does not hold the secret; the test cannot see it")
	}
	if _, err := s.Purge(context.Background(), store.Purge{Repo: "acme/app", Key: "a.md", Versions: []int64{2}, Actor: "root"}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := Backup(context.Background(), path, filepath.Join(dir, "b.db")); err != nil {
		t.Fatal(err)
	}
	if got := filesHolding(t, dir, marker); len(got) > 0 {
		t.Errorf("the backup %v holds the purged bytes", got)
	}
}
