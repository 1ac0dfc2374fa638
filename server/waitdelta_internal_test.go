package server

import (
	"maps"
	"testing"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/store"
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
