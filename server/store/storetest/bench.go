package storetest

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/server/store"
)

// BenchSnapshotOf measures, on s, the read of a full pull that names its
// keys, of 1 and of 256 keys, of a repo of 1,000 entries of 4 KB written
// in 4 writes, against the read of every value it replaces.
func BenchSnapshotOf(b *testing.B, s store.Store) {
	ctx := context.Background()
	for batch := range 4 {
		entries := map[string]string{}
		for i := batch * 250; i < (batch+1)*250; i++ {
			entries[fmt.Sprintf("notes/topic-%04d.md", i)] = fmt.Sprint(i, strings.Repeat("x", 4092))
		}
		if _, err := s.Apply(ctx, store.Write{Repo: "acme/app", Entries: entries, Subject: "bench"}); err != nil {
			b.Fatal(err)
		}
	}
	for _, n := range []int{1, 256} {
		keys := make([]string, n)
		for i := range keys {
			keys[i] = fmt.Sprintf("notes/topic-%04d.md", i*3)
		}
		b.Run(fmt.Sprint("keys=", n), func(b *testing.B) {
			for b.Loop() {
				snap, err := s.SnapshotOf(ctx, "acme/app", keys)
				if err != nil || len(snap.Entries) != n {
					b.Fatalf("SnapshotOf() = %d values, %v", len(snap.Entries), err)
				}
			}
		})
	}
	b.Run("all", func(b *testing.B) {
		for b.Loop() {
			snap, err := s.Snapshot(ctx, "acme/app", true)
			if err != nil || len(snap.Entries) != 1000 {
				b.Fatalf("Snapshot() = %d values, %v", len(snap.Entries), err)
			}
		}
	})
}
