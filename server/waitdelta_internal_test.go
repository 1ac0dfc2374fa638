package server

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/store"
	"github.com/teammemd/teammemd/server/store/sqlite"
)

func snapOf(sums map[string]string, deleted map[string]int64) store.Snapshot {
	return store.Snapshot{Checksum: api.RepoChecksum(sums, deleted), EntryChecksums: sums, Deleted: deleted}
}

func TestChangesSince(t *testing.T) {
	prev := snapOf(map[string]string{"a": "s1", "b": "s2", "c": "s3"}, map[string]int64{"d": 10, "e": 20})
	tests := []struct {
		name  string
		cur   store.Snapshot
		ok    bool
		sums  map[string]string
		tombs map[string]int64
	}{
		{"one changed", snapOf(map[string]string{"a": "s9", "b": "s2", "c": "s3"}, map[string]int64{"d": 10, "e": 20}),
			true, map[string]string{"a": "s9"}, map[string]int64{}},
		{"deleted, revived, deleted again later", snapOf(map[string]string{"a": "s1", "c": "s3", "d": "s4"}, map[string]int64{"b": 30, "e": 40}),
			true, map[string]string{"d": "s4"}, map[string]int64{"b": 30, "e": 40}},
		{"a tombstone compacted away", snapOf(map[string]string{"a": "s1", "b": "s2", "c": "s3"}, map[string]int64{"d": 10}),
			false, nil, nil},
		{"a live key gone", snapOf(map[string]string{"a": "s1", "b": "s2"}, map[string]int64{"d": 10, "e": 20}),
			false, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, ok := changesSince(prev, tt.cur)
			if ok != tt.ok {
				t.Fatalf("ok = %v, want %v", ok, tt.ok)
			}
			if !ok {
				return
			}
			if !maps.Equal(d.EntryChecksums, tt.sums) || !maps.Equal(d.Deleted, tt.tombs) || d.Checksum != tt.cur.Checksum {
				t.Fatalf("changes = %v %v at %s, want %v %v", d.EntryChecksums, d.Deleted, d.Checksum, tt.sums, tt.tombs)
			}
			held := api.HashesResponse{Checksum: prev.Checksum, EntryChecksums: prev.EntryChecksums, DeletedEntries: prev.Deleted}
			ans := api.HashesResponse{Checksum: d.Checksum, EntryChecksums: d.EntryChecksums, DeletedEntries: d.Deleted, ChangedSince: prev.Checksum}
			whole, err := ans.Apply(held)
			if err != nil {
				t.Fatal(err)
			}
			if !maps.Equal(whole.EntryChecksums, tt.cur.EntryChecksums) || !maps.Equal(whole.DeletedEntries, tt.cur.Deleted) {
				t.Errorf("applied = %v %v, want %v %v", whole.EntryChecksums, whole.DeletedEntries, tt.cur.EntryChecksums, tt.cur.Deleted)
			}
		})
	}
}

// changesOfWrite, given the keys a real store reports a write changed,
// says what changesSince says of the snapshots before and after it, for
// writes that set, keep and delete keys, revive deleted ones and, with
// a small deletion bound, drop markers (which changes only changesSince
// may judge: the server takes the keys only when none were dropped).
func TestChangesOfWriteAsSince(t *testing.T) {
	ctx := t.Context()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), sqlite.FileName), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	const repo = "acme/app"
	rnd := rand.New(rand.NewPCG(1, 2))
	at := time.Unix(1_700_000_000, 0)
	if _, err := st.Apply(ctx, store.Write{Repo: repo, Entries: map[string]string{"k0.md": "v"}, Time: at}); err != nil {
		t.Fatal(err)
	}
	var compared, compactions int
	for i := range 400 {
		w := store.Write{Repo: repo, Entries: map[string]string{}, Time: at.Add(time.Duration(i+1) * time.Second)}
		for range 1 + rnd.IntN(3) {
			k := fmt.Sprintf("k%d.md", rnd.IntN(12))
			if rnd.IntN(3) == 0 {
				w.Deletes = append(w.Deletes, k)
			} else {
				w.Entries[k] = fmt.Sprint(rnd.IntN(3))
			}
		}
		for _, k := range w.Deletes {
			delete(w.Entries, k)
		}
		if rnd.IntN(4) == 0 {
			w.Deletions = store.DeletionBound{Max: 2}
		}
		prev, err := st.Snapshot(ctx, repo, false)
		if err != nil {
			t.Fatal(err)
		}
		res, err := st.Apply(ctx, w)
		if err != nil {
			t.Fatal(err)
		}
		cur, err := st.Snapshot(ctx, repo, false)
		if err != nil {
			t.Fatal(err)
		}
		if cur.CompactedThrough != prev.CompactedThrough {
			compactions++
			continue
		}
		if len(res.Changed) == 0 {
			continue
		}
		if cur.Version != prev.Version+1 {
			t.Fatalf("write %d: version %d after %d", i, cur.Version, prev.Version)
		}
		got, gotOK := changesOfWrite(prev, cur, res.Changed)
		want, wantOK := changesSince(prev, cur)
		if gotOK != wantOK || !maps.Equal(got.EntryChecksums, want.EntryChecksums) || !maps.Equal(got.Deleted, want.Deleted) {
			t.Fatalf("write %d (%v, deleting %v, changed %v): changesOfWrite = %v %v %v, changesSince = %v %v %v",
				i, w.Entries, w.Deletes, res.Changed, got.EntryChecksums, got.Deleted, gotOK, want.EntryChecksums, want.Deleted, wantOK)
		}
		compared++
	}
	t.Logf("%d writes compared, %d with markers dropped", compared, compactions)
	if compared < 100 || compactions == 0 {
		t.Fatalf("compared %d writes, %d compacted markers: the test does not exercise both", compared, compactions)
	}
}

// The server works out the changes from the write's keys only when it
// kept them for that very commit, one version on, with no marker dropped:
// a snapshot pair that differs in a key the write did not name shows
// which way was taken.
func TestChangesFromTheWritesKeys(t *testing.T) {
	prev := snapOf(map[string]string{"a": "s1", "b": "s2"}, map[string]int64{})
	prev.Repo, prev.Version = "acme/app", 4
	cur := snapOf(map[string]string{"a": "s9", "b": "s8"}, map[string]int64{})
	cur.Repo, cur.Version = "acme/app", 5
	var s Server
	s.values.put(cur.Repo, cur.Checksum, cur.Version, nil, &api.Written{Keys: []string{"a"}})
	tests := []struct {
		name   string
		change func(*store.Snapshot)
		want   map[string]string
	}{
		{"the write kept", func(*store.Snapshot) {}, map[string]string{"a": "s9"}},
		{"two versions on", func(c *store.Snapshot) { c.Version = 6 }, map[string]string{"a": "s9", "b": "s8"}},
		{"markers dropped", func(c *store.Snapshot) { c.CompactedThrough = 5 }, map[string]string{"a": "s9", "b": "s8"}},
		{"another repo's", func(c *store.Snapshot) { c.Repo = "acme/other" }, map[string]string{"a": "s9", "b": "s8"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := cur
			tt.change(&c)
			d, ok := s.changes(prev, c)
			if !ok || !maps.Equal(d.EntryChecksums, tt.want) {
				t.Fatalf("changes = %v, %v; want %v", d.EntryChecksums, ok, tt.want)
			}
		})
	}
}
