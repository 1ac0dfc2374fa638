package storetest

import (
	"context"
	"errors"
	"maps"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/server/store"
)

// testDeleteTwice checks that a key named more than once in one write's
// Deletes is deleted once: it lowers the live count once (so the entry
// cap still holds), is listed once in Changed and gets one deletion
// revision.
func testDeleteTwice(t *testing.T, s store.Store) {
	ctx := context.Background()
	first := apply(t, s, store.Write{Repo: repo, Entries: map[string]string{"a.md": "A", "b.md": "B", "c.md": "C"}, Time: at(1), MaxEntries: 3})
	_, err := s.Apply(ctx, store.Write{Repo: repo, Entries: map[string]string{"d.md": "D", "e.md": "E"},
		Deletes: []string{"a.md", "a.md"}, Subject: "ann", Time: at(2), MaxEntries: 3})
	var tooMany *store.TooManyEntriesError
	if !errors.As(err, &tooMany) || tooMany.Received != 4 {
		t.Errorf("Apply(2 new, a.md deleted twice, cap 3) error = %v, want *TooManyEntriesError with Received 4", err)
	}
	if snap := snapshot(t, s, repo); snap.Version != first.Version || snap.Checksum != first.Checksum {
		t.Errorf("Snapshot = v%d %s after a refused write, want v%d %s", snap.Version, snap.Checksum, first.Version, first.Checksum)
	}

	r := apply(t, s, store.Write{Repo: repo, Deletes: []string{"a.md", "b.md", "a.md", "never.md", "never.md"}, Time: at(3), MaxEntries: 3})
	if r.Version != 2 {
		t.Errorf("Apply(delete a.md twice).Version = %d, want 2", r.Version)
	}
	wantChanged(t, r, "a.md", "b.md")
	checkRevisions(t, "History(a.md)", history(t, s, store.HistoryQuery{Repo: repo, Key: "a.md"}), []revWant{
		{version: 2, subject: "ann", time: at(3), deleted: true},
		{version: 1, subject: "ann", time: at(1), content: "A"},
	})
	snap := snapshot(t, s, repo)
	wantEntries(t, snap, map[string]string{"c.md": "C"})
	wantDeleted := map[string]int64{"a.md": at(3).UnixMilli(), "b.md": at(3).UnixMilli()}
	if !maps.Equal(snap.Deleted, wantDeleted) {
		t.Errorf("Snapshot.Deleted = %v, want %v", snap.Deleted, wantDeleted)
	}
}

// testWrittenAndDeleted checks that a write giving a key a new value and
// deleting it is refused, whether the key is live, tombstoned or new, and
// writes nothing.
func testWrittenAndDeleted(t *testing.T, s store.Store) {
	ctx := context.Background()
	first := apply(t, s, store.Write{Repo: repo, Entries: map[string]string{"a.md": "A", "b.md": "B"}, Time: at(1)})
	apply(t, s, store.Write{Repo: repo, Deletes: []string{"b.md"}, Time: at(2)})
	before := snapshot(t, s, repo)
	for _, key := range []string{"a.md", "b.md", "new.md"} {
		_, err := s.Apply(ctx, store.Write{Repo: repo, Entries: map[string]string{key: "changed", "c.md": "C"},
			Deletes: []string{key}, Subject: "ann", Time: at(3)})
		if err == nil || !strings.Contains(err.Error(), key) {
			t.Errorf("Apply(%s written and deleted) error = %v, want an error naming the key", key, err)
		}
	}
	if after := snapshot(t, s, repo); after.Version != before.Version || after.Checksum != before.Checksum {
		t.Errorf("Snapshot = v%d %s after refused writes, want v%d %s", after.Version, after.Checksum, before.Version, before.Checksum)
	}
	if before.Version != first.Version+1 {
		t.Errorf("Snapshot.Version = %d after a delete, want %d", before.Version, first.Version+1)
	}
}
