package server

import (
	"fmt"
	"maps"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/store"
)

// BenchmarkChangesAfterPause works out a change wait's answer for a save
// of one note into a repo of 1,500 after 300 ms of quiet, untimed, as a
// server does when a teammate's save wakes the waits parked on it: "all"
// compares every key of the repo before and after (changesSince), "write"
// only the keys the write changed (changesOfWrite). Run it with a small
// count (-benchtime 30x): each answer waits its pause. Its figure is
// µs/answer, the answers alone.
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
			b.StopTimer() // the pauses and the timer's own work stay out
			var total time.Duration
			for i := 0; i < b.N; i++ {
				cur := next(i)
				time.Sleep(300 * time.Millisecond)
				start := time.Now()
				d, ok := ways[name](prev, cur)
				total += time.Since(start)
				if !ok || len(d.EntryChecksums) != 1 {
					b.Fatalf("changes = %v, %v; want MEMORY.md alone", d.EntryChecksums, ok)
				}
			}
			b.ReportMetric(float64(total.Microseconds())/float64(b.N), "µs/answer")
		})
	}
}
