package sqlite

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/store"
)

// filesHolding returns the files in dir whose bytes hold marker.
func filesHolding(t *testing.T, dir, marker string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var holding []string
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte(marker)) {
			holding = append(holding, e.Name())
		}
	}
	return holding
}

// TestPurgedBytesDoNotLinger writes a secret, replaces it, and purges the
// revision that held it, while the store stays open as a running server's
// would: no file of the database (the database, its write-ahead log and
// shared memory) may still hold the secret's bytes, neither in the history
// row, nor in the space the entry's old value was freed from, nor in an
// older page image in the log. Values small enough to sit inside a page
// and large enough to need overflow pages are both tried.
func TestPurgedBytesDoNotLinger(t *testing.T) {
	for _, size := range []int{40, 20_000} {
		dir := t.TempDir()
		s := mustOpen(t, filepath.Join(dir, FileName))
		const marker = "SECRET-Zq7Zq7Zq7"
		value := strings.Repeat(marker+" ", size/len(marker))
		mustApply(t, s, store.Write{Repo: "acme/app", Entries: map[string]string{"a.md": value, "b.md": "b"}, Subject: "ann"})
		if got := filesHolding(t, dir, marker); len(got) == 0 {
			t.Fatalf("size %d: no file holds the secret after it was written; the test cannot see it", size)
		}
		mustApply(t, s, store.Write{Repo: "acme/app", Entries: map[string]string{"a.md": "fixed"}, Subject: "ann", Time: t0.Add(time.Second)})
		r, err := s.Purge(context.Background(), store.Purge{Repo: "acme/app", Key: "a.md", Versions: []int64{1}, Actor: "root"})
		if err != nil || r.Residue != "" {
			t.Fatalf("size %d: Purge() = %+v, %v, want success with no residue", size, r, err)
		}
		if got := filesHolding(t, dir, marker); len(got) > 0 {
			t.Errorf("size %d: after the purge %v still hold the secret", size, got)
		}
	}
}

// TestPurgeLiveBytesDoNotLinger purges the live revision: the entry's value
// goes with it.
func TestPurgeLiveBytesDoNotLinger(t *testing.T) {
	dir := t.TempDir()
	s := mustOpen(t, filepath.Join(dir, FileName))
	const marker = "SECRET-Yw8Yw8Yw8"
	mustApply(t, s, store.Write{Repo: "acme/app", Entries: map[string]string{"a.md": strings.Repeat(marker+" ", 400), "b.md": "b"}, Subject: "ann"})
	if _, err := s.Purge(context.Background(), store.Purge{Repo: "acme/app", Key: "a.md", IncludeLive: true, Actor: "root"}); err != nil {
		t.Fatal(err)
	}
	if got := filesHolding(t, dir, marker); len(got) > 0 {
		t.Errorf("after the purge %v still hold the secret", got)
	}
}

// TestMigrateAddsPurges opens a database of the first schema version, with
// data, and finds it upgraded: its data kept, purges recorded, markers
// compacted.
func TestMigrateAddsPurges(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	s := mustOpen(t, path)
	mustApply(t, s, store.Write{Repo: "acme/app", Entries: map[string]string{"a.md": "one"}, Subject: "ann"})
	mustApply(t, s, store.Write{Repo: "acme/app", Entries: map[string]string{"a.md": "two"}, Subject: "ann", Time: t0.Add(time.Second)})
	s.Close()
	rawExec(t, path, "DROP TABLE identity_bindings")
	rawExec(t, path, "DROP TABLE personal_lanes")
	rawExec(t, path, "DROP TABLE personal_keys")
	rawExec(t, path, "ALTER TABLE revisions DROP COLUMN client")
	rawExec(t, path, "DROP TABLE web_sessions")
	rawExec(t, path, "DROP TABLE proposals")
	rawExec(t, path, "DROP TABLE purges")
	rawExec(t, path, "ALTER TABLE repos DROP COLUMN compacted_through")
	rawExec(t, path, "PRAGMA user_version = 1")

	s = mustOpen(t, path)
	r, err := s.Purge(context.Background(), store.Purge{Repo: "acme/app", Key: "a.md", Versions: []int64{1}, Actor: "root", Time: t0})
	if err != nil || len(r.Record.Versions) != 1 {
		t.Fatalf("Purge(after migration) = %+v, %v, want version 1 purged", r, err)
	}
	if recs, err := s.Purges(context.Background(), ""); err != nil || len(recs) != 1 {
		t.Errorf("Purges(after migration) = %+v, %v, want 1 record", recs, err)
	}
	mustApply(t, s, store.Write{Repo: "acme/app", Deletes: []string{"a.md"}, Subject: "ann", Time: t0.Add(2 * time.Second)})
	w := mustApply(t, s, store.Write{Repo: "acme/app", Entries: map[string]string{"b.md": "b"}, Subject: "ann", Time: t0.Add(3 * time.Second),
		Deletions: store.DeletionBound{Max: 1, KeepFor: time.Millisecond}})
	if snap, err := s.Snapshot(context.Background(), "acme/app", false); err != nil || len(snap.Deleted) != 0 || snap.CompactedThrough != w.Version {
		t.Errorf("Snapshot(after migration and compaction) = %+v, %v, want no marker, compacted through %d", snap, err, w.Version)
	}
}
