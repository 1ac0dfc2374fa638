package storetest

import (
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/store"
)

// wantMarkers checks a repo's deletion markers and compaction horizon.
func wantMarkers(t *testing.T, s store.Store, step string, keys []string, compactedThrough int64) {
	t.Helper()
	snap := snapshot(t, s, repo)
	if got := slices.Sorted(maps.Keys(snap.Deleted)); !slices.Equal(got, keys) {
		t.Errorf("%s: Snapshot.Deleted keys = %v, want %v", step, got, keys)
	}
	if snap.CompactedThrough != compactedThrough {
		t.Errorf("%s: Snapshot.CompactedThrough = %d, want %d", step, snap.CompactedThrough, compactedThrough)
	}
}

// testDeletionMax keeps at most Max markers: a write over it drops the
// oldest, its own version becomes the horizon, and the deletion stays in
// history; writes without a bound keep every marker.
func testDeletionMax(t *testing.T, s store.Store) {
	bound := store.DeletionBound{Max: 2}
	apply(t, s, store.Write{Repo: repo, Entries: map[string]string{"a.md": "A", "b.md": "B", "c.md": "C", "d.md": "D", "e.md": "E"}, Time: at(1)})
	apply(t, s, store.Write{Repo: repo, Deletes: []string{"a.md"}, Time: at(2)})
	apply(t, s, store.Write{Repo: repo, Deletes: []string{"b.md"}, Time: at(3)})
	apply(t, s, store.Write{Repo: repo, Deletes: []string{"c.md"}, Time: at(4)})
	wantMarkers(t, s, "unbounded", []string{"a.md", "b.md", "c.md"}, 0)

	r := apply(t, s, store.Write{Repo: repo, Entries: map[string]string{"x.md": "X"}, Time: at(5), Deletions: bound})
	wantMarkers(t, s, "bounded write", []string{"b.md", "c.md"}, r.Version)
	if got := snapshot(t, s, repo).Checksum; got != r.Checksum {
		t.Errorf("Apply(bounded).Checksum = %s, want the snapshot's %s", r.Checksum, got)
	}
	revs := history(t, s, store.HistoryQuery{Repo: repo, Key: "a.md"})
	if len(revs) != 2 || !revs[0].Deleted || revs[0].Version != 2 {
		t.Errorf("History(a.md) after compaction = %+v, want the deletion at version 2 first", revs)
	}

	apply(t, s, store.Write{Repo: repo, Entries: map[string]string{"a.md": "A2"}, Time: at(6), Deletions: bound})
	wantMarkers(t, s, "revive a compacted key", []string{"b.md", "c.md"}, r.Version)

	last := apply(t, s, store.Write{Repo: repo, Deletes: []string{"d.md", "e.md", "x.md"}, Time: at(7), Deletions: bound})
	wantMarkers(t, s, "three deletions in one write", []string{"e.md", "x.md"}, last.Version)
}

// testDeletionKeepFor drops the markers older than KeepFor at the write's
// time; a write that changes nothing drops none.
func testDeletionKeepFor(t *testing.T, s store.Store) {
	bound := store.DeletionBound{KeepFor: time.Hour}
	apply(t, s, store.Write{Repo: repo, Entries: map[string]string{"a.md": "A", "b.md": "B", "c.md": "C"}, Time: at(1)})
	apply(t, s, store.Write{Repo: repo, Deletes: []string{"a.md"}, Time: at(2), Deletions: bound})
	apply(t, s, store.Write{Repo: repo, Deletes: []string{"b.md"}, Time: at(2).Add(30 * time.Minute), Deletions: bound})
	later := at(2).Add(75 * time.Minute)
	noop := apply(t, s, store.Write{Repo: repo, Entries: map[string]string{"c.md": "C"}, Time: later, Deletions: bound})
	if noop.Version != 3 {
		t.Errorf("Apply(no-op).Version = %d, want 3", noop.Version)
	}
	wantMarkers(t, s, "no-op write", []string{"a.md", "b.md"}, 0)
	r := apply(t, s, store.Write{Repo: repo, Entries: map[string]string{"c.md": "C2"}, Time: later, Deletions: bound})
	wantMarkers(t, s, "write 75 minutes on", []string{"b.md"}, r.Version)
}
