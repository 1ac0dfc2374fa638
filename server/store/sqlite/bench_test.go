package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/teammemd/teammemd/internal/pausebench"
	"github.com/teammemd/teammemd/server/store"
)

var value4K = strings.Repeat("0123456789abcdef", 256)

// BenchmarkApply measures durable single-entry 4 KB writes, each committed
// with fsync before Apply returns: one writer at a time, then 16 at once
// (group commit).
func BenchmarkApply(b *testing.B) {
	b.Run("serial", func(b *testing.B) {
		s := benchStore(b)
		ctx := context.Background()
		b.SetBytes(int64(len(value4K)))
		for i := 0; b.Loop(); i++ {
			w := store.Write{Repo: "acme/app", Entries: map[string]string{fmt.Sprintf("k%d.md", i%100): fmt.Sprint(i, value4K)}, Subject: "bench"}
			if _, err := s.Apply(ctx, w); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("parallel16", func(b *testing.B) {
		s := benchStore(b)
		ctx := context.Background()
		var client atomic.Int64
		b.SetBytes(int64(len(value4K)))
		// RunParallel starts SetParallelism * GOMAXPROCS goroutines.
		b.SetParallelism(max(1, 16/runtime.GOMAXPROCS(0)))
		b.RunParallel(func(pb *testing.PB) {
			repo := fmt.Sprintf("acme/app%d", client.Add(1))
			for i := 0; pb.Next(); i++ {
				w := store.Write{Repo: repo, Entries: map[string]string{fmt.Sprintf("k%d.md", i%100): fmt.Sprint(i, value4K)}, Subject: "bench"}
				if _, err := s.Apply(ctx, w); err != nil {
					b.Error(err)
					return
				}
			}
		})
		b.ReportMetric(float64(s.writes.Load())/float64(max(1, s.commits.Load())), "writes/commit")
	})
}

// BenchmarkApplyAfterPause measures a durable write of one short note
// after 300 ms of quiet, as a save's commit runs on a server that idled;
// its figure is µs/apply, the writes alone (pausebench.Run).
func BenchmarkApplyAfterPause(b *testing.B) {
	s := pausedStore(b)
	ctx := context.Background()
	pausebench.Run(b, "apply", func(i int) store.Write {
		return store.Write{Repo: "acme/app", Entries: map[string]string{fmt.Sprintf("k%d.md", i%100): fmt.Sprint("note ", i)}, Subject: "bench"}
	}, func(w store.Write) error {
		_, err := s.Apply(ctx, w)
		return err
	})
}

// BenchmarkApplyAfterWarmUp is BenchmarkApplyAfterPause with the write
// announced: after the pause the writer is warmed up for the repo
// (WarmWrite, untimed), and the write comes 2 ms later, as a daemon's PUT
// follows its announcing probe. Its figure is µs/apply, the writes alone.
func BenchmarkApplyAfterWarmUp(b *testing.B) {
	s := pausedStore(b)
	ctx := context.Background()
	b.StopTimer() // the pauses and the warm-ups stay out
	var total time.Duration
	for i := 0; i < b.N; i++ {
		w := store.Write{Repo: "acme/app", Entries: map[string]string{fmt.Sprintf("k%d.md", i%100): fmt.Sprint("note ", i)}, Subject: "bench"}
		time.Sleep(pausebench.Pause)
		if !s.WarmWrite(ctx, "acme/app") {
			b.Fatal("the warm-up did not run")
		}
		time.Sleep(2 * time.Millisecond)
		start := time.Now()
		_, err := s.Apply(ctx, w)
		total += time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(total.Microseconds())/float64(b.N), "µs/apply")
}

// pausedStore opens a store whose repo acme/app holds 100 short notes.
func pausedStore(b *testing.B) *Store {
	s := benchStore(b)
	for i := range 100 {
		w := store.Write{Repo: "acme/app", Entries: map[string]string{fmt.Sprintf("k%d.md", i): "first"}, Subject: "bench"}
		if _, err := s.Apply(context.Background(), w); err != nil {
			b.Fatal(err)
		}
	}
	return s
}

// BenchmarkSnapshotHashes measures a hash probe on an unchanged repo of
// 2,000 entries (the cached path).
func BenchmarkSnapshotHashes(b *testing.B) {
	s := benchStore(b)
	ctx := context.Background()
	entries := map[string]string{}
	for i := range 2000 {
		entries[fmt.Sprintf("notes/topic-%04d.md", i)] = fmt.Sprint(i, value4K[:500])
	}
	if _, err := s.Apply(ctx, store.Write{Repo: "acme/app", Entries: entries, Subject: "bench"}); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		snap, err := s.Snapshot(ctx, "acme/app", false)
		if err != nil || len(snap.EntryChecksums) != 2000 {
			b.Fatalf("Snapshot() = %d entries, %v", len(snap.EntryChecksums), err)
		}
	}
}

func benchStore(b *testing.B) *Store {
	s, err := Open(context.Background(), filepath.Join(b.TempDir(), FileName), Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}
