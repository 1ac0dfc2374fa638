package storetest

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/store"
)

// seedRevisions writes a.md as "one", "two", "three" (versions 1 to 3,
// "three" live) and b.md as "b" (version 4).
func seedRevisions(t *testing.T, s store.Store) {
	t.Helper()
	for i, v := range []string{"one", "two", "three"} {
		apply(t, s, store.Write{Repo: repo, Entries: map[string]string{"a.md": v}, Time: at(i + 1)})
	}
	apply(t, s, store.Write{Repo: repo, Entries: map[string]string{"b.md": "b"}, Time: at(4)})
}

// purge runs p and fails the test on an error.
func purge(t *testing.T, s store.Store, p store.Purge) store.PurgeResult {
	t.Helper()
	if p.Actor == "" {
		p.Actor = "root"
	}
	if p.Time.IsZero() {
		p.Time = at(10)
	}
	r, err := s.Purge(context.Background(), p)
	if err != nil {
		t.Fatalf("Purge(%s %s %v live=%v) error = %v", p.Repo, p.Key, p.Versions, p.IncludeLive, err)
	}
	return r
}

func purges(t *testing.T, s store.Store, repo string) []store.PurgeRecord {
	t.Helper()
	recs, err := s.Purges(context.Background(), repo)
	if err != nil {
		t.Fatalf("Purges(%q) error = %v", repo, err)
	}
	return recs
}

func checkRecord(t *testing.T, what string, got, want store.PurgeRecord) {
	t.Helper()
	if !got.Time.Equal(want.Time) || got.Actor != want.Actor || got.Repo != want.Repo || got.Key != want.Key ||
		got.Reason != want.Reason || !slices.Equal(got.Versions, want.Versions) || got.DeletedVersion != want.DeletedVersion {
		t.Errorf("%s = %+v, want %+v", what, got, want)
	}
}

// The revisions of a.md after seedRevisions, newest first.
var (
	revThree = revWant{version: 3, subject: "ann", time: at(3), content: "three"}
	revTwo   = revWant{version: 2, subject: "ann", time: at(2), content: "two"}
	revOne   = revWant{version: 1, subject: "ann", time: at(1), content: "one"}
)

func purged(r revWant) revWant {
	r.content, r.pruned = "", true
	return r
}

func testPurgeVersion(t *testing.T, s store.Store) {
	seedRevisions(t, s)
	before := snapshot(t, s, repo)
	r := purge(t, s, store.Purge{Repo: repo, Key: "a.md", Versions: []int64{1}, Actor: "alice", Reason: "leaked key", Time: at(10)})
	want := store.PurgeRecord{Time: at(10), Actor: "alice", Repo: repo, Key: "a.md", Reason: "leaked key", Versions: []int64{1}}
	checkRecord(t, "Purge(v1).Record", r.Record, want)
	if r.Deletion.Version != 0 {
		t.Errorf("Purge(v1).Deletion = %+v, want none", r.Deletion)
	}
	revs := history(t, s, store.HistoryQuery{Repo: repo, Key: "a.md"})
	checkRevisions(t, "History(a.md) after purge", revs, []revWant{revThree, revTwo, purged(revOne)})
	if got, want := revs[2].Checksum, entrySum("one"); got != want {
		t.Errorf("History(a.md)[v1].Checksum after purge = %q, want %q (the record stays)", got, want)
	}
	after := snapshot(t, s, repo)
	if after.Version != before.Version || after.Checksum != before.Checksum {
		t.Errorf("Snapshot after purge = v%d %s, want v%d %s (the repo is untouched)", after.Version, after.Checksum, before.Version, before.Checksum)
	}
	recs := purges(t, s, repo)
	if len(recs) != 1 {
		t.Fatalf("Purges(%s) = %d records, want 1", repo, len(recs))
	}
	checkRecord(t, "Purges()[0]", recs[0], want)
}

func testPurgeAllKeepsLive(t *testing.T, s store.Store) {
	seedRevisions(t, s)
	r := purge(t, s, store.Purge{Repo: repo, Key: "a.md"})
	if !slices.Equal(r.Record.Versions, []int64{1, 2}) || r.Record.DeletedVersion != 0 {
		t.Errorf("Purge(all).Record = %+v, want versions [1 2], no deletion", r.Record)
	}
	checkRevisions(t, "History(a.md) after purge", history(t, s, store.HistoryQuery{Repo: repo, Key: "a.md"}),
		[]revWant{revThree, purged(revTwo), purged(revOne)})
	wantEntries(t, snapshot(t, s, repo), map[string]string{"a.md": "three", "b.md": "b"})
	checkRevisions(t, "History(b.md) after purge of a.md", history(t, s, store.HistoryQuery{Repo: repo, Key: "b.md"}),
		[]revWant{{version: 4, subject: "ann", time: at(4), content: "b"}})
}

func testPurgeLiveRefused(t *testing.T, s store.Store) {
	seedRevisions(t, s)
	for _, versions := range [][]int64{{3}, {1, 3}} {
		_, err := s.Purge(context.Background(), store.Purge{Repo: repo, Key: "a.md", Versions: versions, Actor: "root", Time: at(10)})
		wantErr(t, "Purge(live revision, no IncludeLive)", err, store.ErrLiveRevision)
	}
	checkRevisions(t, "History(a.md) after refused purges", history(t, s, store.HistoryQuery{Repo: repo, Key: "a.md"}),
		[]revWant{revThree, revTwo, revOne})
	if recs := purges(t, s, ""); len(recs) != 0 {
		t.Errorf("Purges() after refused purges = %+v, want none", recs)
	}
}

func testPurgeLiveIncluded(t *testing.T, s store.Store) {
	seedRevisions(t, s)
	when := at(10).Add(250 * time.Millisecond)
	r := purge(t, s, store.Purge{Repo: repo, Key: "a.md", Versions: []int64{3}, IncludeLive: true, Actor: "alice", Time: when})
	want := store.PurgeRecord{Time: when, Actor: "alice", Repo: repo, Key: "a.md", Versions: []int64{3}, DeletedVersion: 5}
	checkRecord(t, "Purge(live).Record", r.Record, want)
	snap := snapshot(t, s, repo)
	wantEntries(t, snap, map[string]string{"b.md": "b"})
	if snap.Version != 5 || r.Deletion.Version != 5 || r.Deletion.Checksum != snap.Checksum || !slices.Equal(r.Deletion.Changed, []string{"a.md"}) {
		t.Errorf("after purging the live revision: Snapshot v%d %s, Deletion %+v, want v5 with that checksum, a.md changed", snap.Version, snap.Checksum, r.Deletion)
	}
	if got := snap.Deleted["a.md"]; got != when.UnixMilli() {
		t.Errorf("Snapshot.Deleted[a.md] = %d, want %d", got, when.UnixMilli())
	}
	checkRevisions(t, "History(a.md) after purging the live revision", history(t, s, store.HistoryQuery{Repo: repo, Key: "a.md"}),
		[]revWant{{version: 5, subject: store.PurgeSubjectPrefix + "alice", time: when, deleted: true}, purged(revThree), revTwo, revOne})
	// A later write of the key revives it as any deleted key.
	apply(t, s, store.Write{Repo: repo, Entries: map[string]string{"a.md": "four"}, Time: at(11)})
	wantEntries(t, snapshot(t, s, repo), map[string]string{"a.md": "four", "b.md": "b"})
}

func testPurgeAllIncludeLive(t *testing.T, s store.Store) {
	seedRevisions(t, s)
	r := purge(t, s, store.Purge{Repo: repo, Key: "a.md", IncludeLive: true})
	if !slices.Equal(r.Record.Versions, []int64{1, 2, 3}) || r.Record.DeletedVersion != 5 {
		t.Errorf("Purge(all, live).Record = %+v, want versions [1 2 3] deleted at v5", r.Record)
	}
	revs := history(t, s, store.HistoryQuery{Repo: repo, Key: "a.md"})
	for _, rev := range revs {
		if rev.Content != nil {
			t.Errorf("History(a.md)[v%d].Content = %q after purging all, want nil", rev.Version, *rev.Content)
		}
	}
	wantEntries(t, snapshot(t, s, repo), map[string]string{"b.md": "b"})
}

func testPurgeDeletedKey(t *testing.T, s store.Store) {
	seedRevisions(t, s)
	apply(t, s, store.Write{Repo: repo, Deletes: []string{"a.md"}, Time: at(5)})
	before := snapshot(t, s, repo)
	r := purge(t, s, store.Purge{Repo: repo, Key: "a.md"})
	if !slices.Equal(r.Record.Versions, []int64{1, 2, 3}) || r.Record.DeletedVersion != 0 || r.Deletion.Version != 0 {
		t.Errorf("Purge(all of a deleted key) = %+v, want versions [1 2 3] and no deletion", r)
	}
	if after := snapshot(t, s, repo); after.Version != before.Version || after.Checksum != before.Checksum {
		t.Errorf("Snapshot after purging a deleted key = v%d, want v%d unchanged", after.Version, before.Version)
	}
}

func testPurgeNothingLeft(t *testing.T, s store.Store) {
	seedRevisions(t, s)
	purge(t, s, store.Purge{Repo: repo, Key: "a.md", Versions: []int64{1}})
	apply(t, s, store.Write{Repo: repo, Deletes: []string{"b.md"}, Time: at(5)})
	for _, p := range []store.Purge{
		{Repo: repo, Key: "a.md", Versions: []int64{1}}, // purged already
		{Repo: repo, Key: "b.md", Versions: []int64{5}}, // a deletion
	} {
		r := purge(t, s, p)
		if len(r.Record.Versions) != 0 || r.Deletion.Version != 0 {
			t.Errorf("Purge(%s %v) = %+v, want nothing purged", p.Key, p.Versions, r)
		}
	}
	if recs := purges(t, s, repo); len(recs) != 1 {
		t.Errorf("Purges() = %d records, want 1 (a purge of nothing is not recorded)", len(recs))
	}
}

func testPurgeNotFound(t *testing.T, s store.Store) {
	ctx := context.Background()
	_, err := s.Purge(ctx, store.Purge{Repo: repo, Key: "a.md", Actor: "root", Time: at(10)})
	wantErr(t, "Purge(repo never written)", err, store.ErrNotFound)
	seedRevisions(t, s)
	tests := []struct {
		name     string
		key      string
		versions []int64
	}{
		{"key never written", "never.md", nil},
		{"version of another key", "a.md", []int64{4}},
		{"version never written", "a.md", []int64{99}},
		{"one version of several missing", "a.md", []int64{1, 99}},
	}
	for _, tt := range tests {
		_, err := s.Purge(ctx, store.Purge{Repo: repo, Key: tt.key, Versions: tt.versions, Actor: "root", Time: at(10)})
		wantErr(t, "Purge("+tt.name+")", err, store.ErrRevisionNotFound)
	}
	checkRevisions(t, "History(a.md) after refused purges", history(t, s, store.HistoryQuery{Repo: repo, Key: "a.md"}),
		[]revWant{revThree, revTwo, revOne})
	if recs := purges(t, s, ""); len(recs) != 0 {
		t.Errorf("Purges() after refused purges = %+v, want none", recs)
	}
}

func testPurgesByRepo(t *testing.T, s store.Store) {
	const other = "acme/other"
	seedRevisions(t, s)
	apply(t, s, store.Write{Repo: other, Entries: map[string]string{"x.md": "x1"}, Time: at(5)})
	apply(t, s, store.Write{Repo: other, Entries: map[string]string{"x.md": "x2"}, Time: at(6)})
	purge(t, s, store.Purge{Repo: repo, Key: "a.md", Versions: []int64{2}, Actor: "alice", Time: at(10)})
	purge(t, s, store.Purge{Repo: other, Key: "x.md", Versions: []int64{1}, Actor: "bob", Reason: "why", Time: at(11)})
	purge(t, s, store.Purge{Repo: repo, Key: "a.md", Versions: []int64{1}, Actor: "carl", Time: at(12)})
	all := purges(t, s, "")
	if len(all) != 3 || all[0].Actor != "alice" || all[1].Actor != "bob" || all[2].Actor != "carl" {
		t.Fatalf("Purges() = %+v, want alice's, bob's and carl's, oldest first", all)
	}
	checkRecord(t, "Purges()[1]", all[1], store.PurgeRecord{Time: at(11), Actor: "bob", Repo: other, Key: "x.md", Reason: "why", Versions: []int64{1}})
	mine := purges(t, s, repo)
	if len(mine) != 2 || mine[0].Actor != "alice" || mine[1].Actor != "carl" {
		t.Errorf("Purges(%s) = %+v, want alice's and carl's", repo, mine)
	}
	if none := purges(t, s, "nobody/here"); len(none) != 0 {
		t.Errorf("Purges(nobody/here) = %+v, want none", none)
	}
}
