package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/store"
)

var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

func mustOpen(t *testing.T, path string) *Store {
	t.Helper()
	s, err := Open(context.Background(), path, Options{})
	if err != nil {
		t.Fatalf("Open(%s) error = %v", path, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func mustApply(t *testing.T, s *Store, w store.Write) store.Result {
	t.Helper()
	if w.Time.IsZero() {
		w.Time = t0
	}
	r, err := s.Apply(context.Background(), w)
	if err != nil {
		t.Fatalf("Apply(%s) error = %v", w.Repo, err)
	}
	return r
}

func TestReopenKeepsEverything(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), FileName)
	s := mustOpen(t, path)
	mustApply(t, s, store.Write{Repo: "acme/app", Entries: map[string]string{"a.md": "A", "b.md": "B"}, Subject: "ann"})
	last := mustApply(t, s, store.Write{Repo: "acme/app", Deletes: []string{"a.md"}, Subject: "bob", Time: t0.Add(time.Second)})
	tok := store.Token{ID: "t1", Subject: "ann", Hash: "h1", Grants: []store.Grant{{Pattern: "acme/*", Level: store.LevelWrite}}, CreatedAt: t0}
	if err := s.CreateToken(ctx, tok); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close() error = %v", err)
	}
	if _, err := s.Apply(ctx, store.Write{Repo: "acme/app", Entries: map[string]string{"c.md": "C"}}); !errors.Is(err, ErrClosed) {
		t.Errorf("Apply(after Close) error = %v, want ErrClosed", err)
	}

	s = mustOpen(t, path)
	snap, err := s.Snapshot(ctx, "acme/app", true)
	if err != nil {
		t.Fatalf("Snapshot(after reopen) error = %v", err)
	}
	if snap.Version != 2 || snap.Checksum != last.Checksum || snap.Entries["b.md"] != "B" || len(snap.Entries) != 1 || snap.Deleted["a.md"] == 0 {
		t.Errorf("Snapshot(after reopen) = v%d %s %v %v, want v2 %s {b.md} deleted a.md", snap.Version, snap.Checksum, snap.Entries, snap.Deleted, last.Checksum)
	}
	revs, err := store.ListHistory(ctx, s, store.HistoryQuery{Repo: "acme/app", Key: "a.md"})
	if err != nil || len(revs) != 2 || revs[0].Subject != "bob" {
		t.Errorf("History(after reopen) = %+v, %v, want 2 revisions, newest by bob", revs, err)
	}
	if got, err := s.TokenByHash(ctx, "h1"); err != nil || got.Subject != "ann" {
		t.Errorf("TokenByHash(after reopen) = %+v, %v, want ann's token", got, err)
	}
}

func TestTwoHandlesOnOneFile(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), FileName)
	a, b := mustOpen(t, path), mustOpen(t, path)
	r1 := mustApply(t, a, store.Write{Repo: "acme/app", Entries: map[string]string{"a.md": "A"}})
	if snap, err := b.Snapshot(ctx, "acme/app", false); err != nil || snap.Checksum != r1.Checksum {
		t.Fatalf("b.Snapshot() = %s, %v, want a's %s", snap.Checksum, err, r1.Checksum)
	}
	r2 := mustApply(t, b, store.Write{Repo: "acme/app", IfMatch: r1.Checksum, Entries: map[string]string{"b.md": "B"}})
	// a has r1's state cached; it must notice b's write.
	if snap, err := a.Snapshot(ctx, "acme/app", false); err != nil || snap.Checksum != r2.Checksum || len(snap.EntryChecksums) != 2 {
		t.Errorf("a.Snapshot() = %s with %d entries, %v, want b's %s with 2", snap.Checksum, len(snap.EntryChecksums), err, r2.Checksum)
	}
	if _, err := a.Apply(ctx, store.Write{Repo: "acme/app", IfMatch: r1.Checksum, Entries: map[string]string{"c.md": "C"}, Time: t0}); !errors.Is(err, store.ErrPrecondition) {
		t.Errorf("a.Apply(stale IfMatch) error = %v, want ErrPrecondition", err)
	}
	if err := b.CreateToken(ctx, store.Token{ID: "t1", Subject: "ann", Hash: "h1", CreatedAt: t0}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.TokenByHash(ctx, "h1"); err != nil {
		t.Errorf("a.TokenByHash(created by b) error = %v", err)
	}

	const perHandle = 20
	var wg sync.WaitGroup
	for i, s := range []*Store{a, b} {
		wg.Go(func() {
			for n := range perHandle {
				key := fmt.Sprintf("h%d-%d.md", i, n)
				if _, err := s.Apply(ctx, store.Write{Repo: "acme/app", Entries: map[string]string{key: key}, Time: t0}); err != nil {
					t.Errorf("Apply(%s) error = %v", key, err)
				}
			}
		})
	}
	wg.Wait()
	for _, s := range []*Store{a, b} {
		snap, err := s.Snapshot(ctx, "acme/app", false)
		if err != nil || snap.Version != 2+2*perHandle || len(snap.EntryChecksums) != 2+2*perHandle {
			t.Errorf("Snapshot() = v%d with %d entries, %v, want v%d with %d", snap.Version, len(snap.EntryChecksums), err, 2+2*perHandle, 2+2*perHandle)
		}
	}
}

func TestRefusesFile(t *testing.T) {
	tests := []struct {
		name    string
		prepare func(t *testing.T, path string)
		want    string // in the error; "" when Open must succeed
	}{
		{"empty file", func(t *testing.T, path string) { writeFile(t, path, "") }, ""},
		{"text file", func(t *testing.T, path string) { writeFile(t, path, "hello, this is not a database\n") }, "not a teammemd database"},
		{"short file", func(t *testing.T, path string) { writeFile(t, path, "SQL") }, "not a teammemd database"},
		{"corrupt database", func(t *testing.T, path string) {
			writeFile(t, path, "SQLite format 3\x00"+strings.Repeat("\xff", 4000))
		}, FileName},
		{"foreign database", func(t *testing.T, path string) {
			rawExec(t, path, "CREATE TABLE songs (title TEXT)")
		}, "not a teammemd database"},
		{"other application", func(t *testing.T, path string) { rawExec(t, path, "PRAGMA application_id = 42") }, "not a teammemd database"},
		{"future schema", func(t *testing.T, path string) {
			s := mustOpen(t, path)
			s.Close()
			rawExec(t, path, fmt.Sprintf("PRAGMA user_version = %d", SchemaVersion+1))
		}, "newer than this teammemd supports"},
		{"current schema", func(t *testing.T, path string) {
			s := mustOpen(t, path)
			s.Close()
		}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), FileName)
			tt.prepare(t, path)
			s, err := Open(context.Background(), path, Options{})
			if err == nil {
				s.Close()
			}
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("Open(%s) error = %v, want nil", tt.name, err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("Open(%s) error = %v, want one containing %q", tt.name, err, tt.want)
			}
		})
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// rawExec runs one statement on the file with a plain connection.
func rawExec(t *testing.T, path, stmt string) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(stmt); err != nil {
		t.Fatalf("exec %q: %v", stmt, err)
	}
}

func TestFileModes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b")
	path := filepath.Join(dir, FileName)
	s := mustOpen(t, path)
	mustApply(t, s, store.Write{Repo: "acme/app", Entries: map[string]string{"a.md": "A"}})
	for p, want := range map[string]os.FileMode{dir: 0o700 | os.ModeDir, path: 0o600, path + "-wal": 0o600} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode(); got != want {
			t.Errorf("mode of %s = %v, want %v", filepath.Base(p), got, want)
		}
	}
}

// TestFailingWriteInBatch commits one batch in which a write fails inside
// the database: the others still commit, and the failing one leaves
// nothing behind.
func TestFailingWriteInBatch(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), FileName)
	s := mustOpen(t, path)
	if _, err := s.wdb.ExecContext(ctx, `CREATE TEMP TRIGGER boom BEFORE INSERT ON entries
		WHEN NEW.key = 'boom.md' BEGIN SELECT RAISE(ABORT, 'refused by test trigger'); END`); err != nil {
		t.Fatal(err)
	}
	mk := func(repo string, entries map[string]string) *writeReq {
		req := newWriteReq(ctx)
		req.w = store.Write{Repo: repo, Entries: entries, Subject: "ann", Time: t0}
		return req
	}
	batch := []*writeReq{
		mk("acme/one", map[string]string{"a.md": "A"}),
		mk("acme/two", map[string]string{"ok.md": "fine", "boom.md": "x"}),
		mk("acme/one", map[string]string{"b.md": "B"}),
	}
	s.commitBatch(batch)
	results := make([]writeRes, len(batch))
	for i, req := range batch {
		<-req.done
		results[i] = req.res
	}
	if results[0].err != nil || results[2].err != nil || results[2].r.Version != 2 {
		t.Errorf("commitBatch() = %v, %v (v%d), want two successes, the second at v2", results[0].err, results[2].err, results[2].r.Version)
	}
	if results[1].err == nil || !strings.Contains(results[1].err.Error(), "refused by test trigger") {
		t.Errorf("commitBatch() failing write error = %v, want the trigger's error", results[1].err)
	}
	if _, err := s.Snapshot(ctx, "acme/two", true); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Snapshot(acme/two) error = %v, want ErrNotFound", err)
	}
	snap, err := s.Snapshot(ctx, "acme/one", true)
	if err != nil || len(snap.Entries) != 2 || snap.Version != 2 || snap.Checksum != results[2].r.Checksum {
		t.Errorf("Snapshot(acme/one) = v%d %v, %v, want v2 with a.md and b.md", snap.Version, snap.Entries, err)
	}
}
