package storetest

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/store"
)

const repo = "acme/app"

func testNotFound(t *testing.T, s store.Store) {
	ctx := context.Background()
	for _, withValues := range []bool{true, false} {
		_, err := s.Snapshot(ctx, repo, withValues)
		wantErr(t, "Snapshot(never written)", err, store.ErrNotFound)
	}
	_, err := store.ListHistory(ctx, s, store.HistoryQuery{Repo: repo, Key: "MEMORY.md"})
	wantErr(t, "History(never written)", err, store.ErrNotFound)
}

func testFirstWrite(t *testing.T, s store.Store) {
	entries := map[string]string{"MEMORY.md": "# Team\n", "sub/notes.md": "notes"}
	r := apply(t, s, store.Write{Repo: repo, Entries: entries, Time: at(1)})
	if r.Version != 1 {
		t.Errorf("Apply(first).Version = %d, want 1", r.Version)
	}
	if !r.LastModified.Equal(at(1)) {
		t.Errorf("Apply(first).LastModified = %v, want %v", r.LastModified, at(1))
	}
	wantChanged(t, r, "MEMORY.md", "sub/notes.md")
	snap := snapshot(t, s, repo)
	wantEntries(t, snap, entries)
	if snap.Repo != repo || snap.Version != 1 || snap.Checksum != r.Checksum || !snap.LastModified.Equal(at(1)) {
		t.Errorf("Snapshot = %s v%d %s %v, want %s v1 %s %v", snap.Repo, snap.Version, snap.Checksum, snap.LastModified, repo, r.Checksum, at(1))
	}
	if len(snap.Deleted) != 0 {
		t.Errorf("Snapshot.Deleted = %v, want none", snap.Deleted)
	}
}

func testEmptyWriteOnNewRepo(t *testing.T, s store.Store) {
	r := apply(t, s, store.Write{Repo: repo, Deletes: []string{"gone.md"}})
	if r.Version != 0 || r.Checksum != api.EmptyRepoChecksum || len(r.Changed) != 0 {
		t.Errorf("Apply(nothing) = v%d %s %q, want v0 %s no changes", r.Version, r.Checksum, r.Changed, api.EmptyRepoChecksum)
	}
	_, err := s.Snapshot(context.Background(), repo, true)
	wantErr(t, "Snapshot(after empty write)", err, store.ErrNotFound)
}

func testUpsertMerge(t *testing.T, s store.Store) {
	apply(t, s, store.Write{Repo: repo, Entries: map[string]string{"a.md": "A", "b.md": "B"}, Time: at(1)})
	r := apply(t, s, store.Write{Repo: repo, Entries: map[string]string{"b.md": "B2", "c.md": "C"}, Time: at(2)})
	if r.Version != 2 {
		t.Errorf("Apply(merge).Version = %d, want 2", r.Version)
	}
	wantChanged(t, r, "b.md", "c.md")
	wantEntries(t, snapshot(t, s, repo), map[string]string{"a.md": "A", "b.md": "B2", "c.md": "C"})
}

func testSoftDelete(t *testing.T, s store.Store) {
	apply(t, s, store.Write{Repo: repo, Entries: map[string]string{"a.md": "A", "b.md": "B"}, Time: at(1)})
	when := at(2).Add(123 * 1e6) // 123 ms past the second
	r := apply(t, s, store.Write{Repo: repo, Deletes: []string{"a.md"}, Time: when})
	if r.Version != 2 {
		t.Errorf("Apply(delete).Version = %d, want 2", r.Version)
	}
	wantChanged(t, r, "a.md")
	snap := snapshot(t, s, repo)
	wantEntries(t, snap, map[string]string{"b.md": "B"})
	if got, want := snap.Deleted["a.md"], when.UnixMilli(); got != want {
		t.Errorf("Snapshot.Deleted[a.md] = %d, want %d", got, want)
	}
	if _, live := snap.EntryChecksums["a.md"]; live {
		t.Errorf("Snapshot.EntryChecksums[a.md] present after delete, want absent")
	}
}

func testRevive(t *testing.T, s store.Store) {
	apply(t, s, store.Write{Repo: repo, Entries: map[string]string{"a.md": "A"}, Time: at(1)})
	apply(t, s, store.Write{Repo: repo, Deletes: []string{"a.md"}, Time: at(2)})
	r := apply(t, s, store.Write{Repo: repo, Entries: map[string]string{"a.md": "A"}, Time: at(3)})
	if r.Version != 3 {
		t.Errorf("Apply(revive).Version = %d, want 3", r.Version)
	}
	wantChanged(t, r, "a.md")
	snap := snapshot(t, s, repo)
	wantEntries(t, snap, map[string]string{"a.md": "A"})
	if len(snap.Deleted) != 0 {
		t.Errorf("Snapshot.Deleted = %v after revive, want none", snap.Deleted)
	}
}

func testDeleteAbsent(t *testing.T, s store.Store) {
	first := apply(t, s, store.Write{Repo: repo, Entries: map[string]string{"a.md": "A", "b.md": "B"}, Time: at(1)})
	r := apply(t, s, store.Write{Repo: repo, Deletes: []string{"never.md"}, Time: at(2)})
	if r.Version != first.Version || r.Checksum != first.Checksum {
		t.Errorf("Apply(delete absent) = v%d %s, want v%d %s", r.Version, r.Checksum, first.Version, first.Checksum)
	}
	wantChanged(t, r)
	del := apply(t, s, store.Write{Repo: repo, Deletes: []string{"a.md"}, Time: at(3)})
	again := apply(t, s, store.Write{Repo: repo, Deletes: []string{"a.md"}, Time: at(4)})
	if again.Version != del.Version || again.Checksum != del.Checksum {
		t.Errorf("Apply(delete tombstoned) = v%d, want v%d", again.Version, del.Version)
	}
	wantChanged(t, again)
	if got, want := snapshot(t, s, repo).Deleted["a.md"], at(3).UnixMilli(); got != want {
		t.Errorf("Snapshot.Deleted[a.md] = %d after a second delete, want the first %d", got, want)
	}
}

func testNoOpWrite(t *testing.T, s store.Store) {
	first := apply(t, s, store.Write{Repo: repo, Entries: map[string]string{"a.md": "A", "b.md": "B"}, Time: at(1)})
	r := apply(t, s, store.Write{Repo: repo, Entries: map[string]string{"a.md": "A"}, Time: at(2)})
	if r.Version != first.Version || r.Checksum != first.Checksum || !r.LastModified.Equal(at(1)) {
		t.Errorf("Apply(no-op) = v%d %s %v, want v%d %s %v", r.Version, r.Checksum, r.LastModified, first.Version, first.Checksum, at(1))
	}
	wantChanged(t, r)
	if got := snapshot(t, s, repo).Version; got != 1 {
		t.Errorf("Snapshot.Version = %d after a no-op write, want 1", got)
	}
}

func testIfMatch(t *testing.T, s store.Store) {
	ctx := context.Background()
	_, err := s.Apply(ctx, store.Write{Repo: repo, IfMatch: "sha256:00", Entries: map[string]string{"a.md": "A"}, Time: at(1)})
	wantErr(t, "Apply(new repo, wrong IfMatch)", err, store.ErrPrecondition)
	_, err = s.Snapshot(ctx, repo, false)
	wantErr(t, "Snapshot(after refused write)", err, store.ErrNotFound)

	first := apply(t, s, store.Write{Repo: repo, IfMatch: api.EmptyRepoChecksum, Entries: map[string]string{"a.md": "A"}, Time: at(1)})
	second := apply(t, s, store.Write{Repo: repo, IfMatch: first.Checksum, Entries: map[string]string{"b.md": "B"}, Time: at(2)})
	_, err = s.Apply(ctx, store.Write{Repo: repo, IfMatch: first.Checksum, Entries: map[string]string{"c.md": "C"}, Time: at(3)})
	wantErr(t, "Apply(stale IfMatch)", err, store.ErrPrecondition)
	_, err = s.Apply(ctx, store.Write{Repo: repo, IfMatch: api.EmptyRepoChecksum, Deletes: []string{"a.md"}, Time: at(3)})
	wantErr(t, "Apply(empty IfMatch on written repo)", err, store.ErrPrecondition)
	snap := snapshot(t, s, repo)
	if snap.Version != second.Version || snap.Checksum != second.Checksum {
		t.Errorf("Snapshot = v%d %s after refused writes, want v%d %s", snap.Version, snap.Checksum, second.Version, second.Checksum)
	}
	wantEntries(t, snap, map[string]string{"a.md": "A", "b.md": "B"})
}

func testMaxEntries(t *testing.T, s store.Store) {
	ctx := context.Background()
	apply(t, s, store.Write{Repo: repo, Entries: map[string]string{"a.md": "A", "b.md": "B", "c.md": "C"}, Time: at(1), MaxEntries: 3})
	tests := []struct {
		name     string
		w        store.Write
		received int // 0 when the write must succeed
	}{
		{"two new over four", store.Write{Entries: map[string]string{"d.md": "D", "e.md": "E"}, MaxEntries: 4}, 5},
		{"update at the cap", store.Write{Entries: map[string]string{"a.md": "A2"}, MaxEntries: 3}, 0},
		{"new at the cap", store.Write{Entries: map[string]string{"d.md": "D"}, MaxEntries: 3}, 4},
		{"tombstones do not count", store.Write{Entries: map[string]string{"d.md": "D"}, Deletes: []string{"a.md"}, MaxEntries: 3}, 0},
		{"revive over the cap", store.Write{Entries: map[string]string{"a.md": "A3"}, MaxEntries: 3}, 4},
		{"no cap", store.Write{Entries: map[string]string{"e.md": "E", "f.md": "F"}}, 0},
	}
	for i, tt := range tests {
		tt.w.Repo, tt.w.Time, tt.w.Subject = repo, at(2+i), "ann"
		before := snapshot(t, s, repo)
		_, err := s.Apply(ctx, tt.w)
		var tooMany *store.TooManyEntriesError
		switch {
		case tt.received == 0 && err != nil:
			t.Errorf("%s: Apply() error = %v, want nil", tt.name, err)
		case tt.received != 0 && !errors.As(err, &tooMany):
			t.Errorf("%s: Apply() error = %v, want *TooManyEntriesError", tt.name, err)
		case tt.received != 0:
			if tooMany.Max != tt.w.MaxEntries || tooMany.Received != tt.received {
				t.Errorf("%s: Apply() = %+v, want Max %d Received %d", tt.name, *tooMany, tt.w.MaxEntries, tt.received)
			}
			if after := snapshot(t, s, repo); after.Checksum != before.Checksum || after.Version != before.Version {
				t.Errorf("%s: refused write changed the repo to v%d, want v%d", tt.name, after.Version, before.Version)
			}
		}
	}
}

func testValuesByteExact(t *testing.T, s store.Store) {
	values := map[string]string{
		"crlf.md":    "line one\r\nline two\r\n",
		"bom.md":     "\ufeff# with BOM\n",
		"empty.md":   "",
		"unicode.md": "naïve café — 日本語 🚀\n",
		"spaces.md":  "  trailing spaces  \n\n\t\n",
		"lone-cr.md": "old mac\rline\r",
		"big.md":     strings.Repeat("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMN\n", 4900) + strings.Repeat("x", 100),
	}
	if got := len(values["big.md"]); got != 250_000 {
		t.Fatalf("len(big value) = %d, want 250000", got)
	}
	apply(t, s, store.Write{Repo: repo, Entries: values, Time: at(1)})
	snap := snapshot(t, s, repo)
	for k, want := range values {
		if got := snap.Entries[k]; got != want {
			t.Errorf("Snapshot.Entries[%q] = %d bytes %q..., want %d bytes", k, len(got), trim(got), len(want))
		}
		if got, want := snap.EntryChecksums[k], entrySum(want); got != want {
			t.Errorf("Snapshot.EntryChecksums[%q] = %q, want %q", k, got, want)
		}
	}
}

func trim(s string) string {
	if len(s) > 20 {
		return s[:20]
	}
	return s
}

func testKeyByteOrder(t *testing.T, s store.Store) {
	entries := map[string]string{
		"B.md": "1", "a.md": "2", "Z/x.md": "3", "a/b.md": "4", "a-b.md": "5",
		"é.md": "6", "e.md": "7", "ä/ü.md": "8", "a.md.txt": "9", "_x.md": "10",
	}
	apply(t, s, store.Write{Repo: repo, Entries: entries, Time: at(1)})
	apply(t, s, store.Write{Repo: repo, Deletes: []string{"a-b.md", "é.md"}, Time: at(2)})
	snap := snapshot(t, s, repo)
	want := repoSum(snap.EntryChecksums, snap.Deleted)
	if snap.Checksum != want || len(snap.EntryChecksums) != 8 || len(snap.Deleted) != 2 {
		t.Errorf("Snapshot = %s with %d live %d deleted, want %s with 8 live 2 deleted",
			snap.Checksum, len(snap.EntryChecksums), len(snap.Deleted), want)
	}
}

func testReposIsolated(t *testing.T, s store.Store) {
	repos := []string{"acme/app", "acme/web", "gitlab.example.com/acme/app", "acme/App"}
	for i, r := range repos {
		for n := 0; n <= i; n++ {
			apply(t, s, store.Write{Repo: r, Entries: map[string]string{"MEMORY.md": r, "only-" + r[len(r)-3:] + ".md": "x"}, Time: at(n)})
			apply(t, s, store.Write{Repo: r, Entries: map[string]string{"n.md": string(rune('a' + n))}, Time: at(n)})
		}
	}
	for i, r := range repos {
		snap := snapshot(t, s, r)
		if got, want := snap.Version, int64(i+2); got != want {
			t.Errorf("Snapshot(%s).Version = %d, want %d", r, got, want)
		}
		want := map[string]string{"MEMORY.md": r, "only-" + r[len(r)-3:] + ".md": "x", "n.md": string(rune('a' + i))}
		wantEntries(t, snap, want)
	}
}

func testCanceledContext(t *testing.T, s store.Store) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Apply(ctx, store.Write{Repo: repo, Entries: map[string]string{"a.md": "A"}, Time: at(1)}); err == nil {
		t.Errorf("Apply(canceled) error = nil, want an error")
	}
	_, err := s.Snapshot(context.Background(), repo, true)
	wantErr(t, "Snapshot(after canceled write)", err, store.ErrNotFound)
}
