package server

import (
	"fmt"
	"maps"
	"testing"

	"github.com/teammemd/teammemd/internal/pausebench"
	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/store"
)

// BenchmarkChangesAfterPause works out a change wait's answer for a save
// of one note into a repo of 1,500 after 300 ms of quiet, as a server
// does when a teammate's save wakes the waits parked on it: "all"
// compares every key of the repo before and after (changesSince), "write"
// only the keys the write changed (changesOfWrite). Its figure is
// µs/answer, the answers alone (pausebench.Run).
func BenchmarkChangesAfterPause(b *testing.B) {
	sums := map[string]string{}
	for i := range 1500 {
		k := fmt.Sprintf("burst/f%05d.md", i)
		sums[k] = api.EntryChecksum(k)
	}
	prev := store.Snapshot{Repo: "acme/app", Version: 7, EntryChecksums: sums, Deleted: map[string]int64{}}
	prev.Checksum = api.RepoChecksum(prev.EntryChecksums, prev.Deleted)
	next := func(i int) store.Snapshot {
		cur := prev
		cur.Version++
		cur.EntryChecksums = maps.Clone(sums)
		cur.EntryChecksums["MEMORY.md"] = api.EntryChecksum(fmt.Sprint(i))
		return cur
	}
	ways := map[string]func(prev, cur store.Snapshot) (store.Snapshot, bool){
		"all": changesSince,
		"write": func(prev, cur store.Snapshot) (store.Snapshot, bool) {
			return changesOfWrite(prev, cur, []string{"MEMORY.md"})
		},
	}
	for _, name := range []string{"all", "write"} {
		b.Run(name, func(b *testing.B) {
			pausebench.Run(b, "answer", next, func(cur store.Snapshot) error {
				if d, ok := ways[name](prev, cur); !ok || len(d.EntryChecksums) != 1 {
					return fmt.Errorf("changes = %v, %v; want MEMORY.md alone", d.EntryChecksums, ok)
				}
				return nil
			})
		})
	}
}
