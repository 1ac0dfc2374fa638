package sqlite

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/store"
)

// BenchmarkSmallReads measures the reads a save brings about besides its
// write: a daemon's provenance refresh (the newest history rows of a
// repo), the change waits' hash probe, the credential check, and the
// store watch's two reads, each on a repo of 100 entries.
func BenchmarkSmallReads(b *testing.B) {
	s := benchStore(b)
	ctx := context.Background()
	for i := range 100 {
		w := store.Write{Repo: "acme/app", Entries: map[string]string{fmt.Sprintf("k%d.md", i): fmt.Sprint(i, value4K[:500])}, Subject: "bench"}
		if _, err := s.Apply(ctx, w); err != nil {
			b.Fatal(err)
		}
	}
	tok := store.Token{ID: "t1", Hash: "h1", Subject: "alice", CreatedAt: time.Now()}
	if err := s.CreateToken(ctx, tok); err != nil {
		b.Fatal(err)
	}
	reads := []struct {
		name string
		read func() error
	}{
		{"history-page", func() error {
			return s.History(ctx, store.HistoryQuery{Repo: "acme/app", Limit: 3, NoContent: true}, func(store.Revision) error { return nil })
		}},
		{"key-history", func() error {
			return s.History(ctx, store.HistoryQuery{Repo: "acme/app", Key: "k7.md", Limit: 3}, func(store.Revision) error { return nil })
		}},
		{"hashes", func() error { _, err := s.Snapshot(ctx, "acme/app", false); return err }},
		{"values-of-one", func() error { _, err := s.SnapshotOf(ctx, "acme/app", []string{"k9.md"}); return err }},
		{"token", func() error { _, err := s.TokenByHash(ctx, tok.Hash); return err }},
		{"store-id", func() error { _, err := s.StoreID(ctx); return err }},
		{"token-counts", func() error { _, err := s.TokenCounts(ctx); return err }},
	}
	for _, r := range reads {
		b.Run(r.name, func(b *testing.B) {
			for b.Loop() {
				if err := r.read(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkHistoryPageOfLargeRepo measures the newest page of a repo's
// history, three revisions as a daemon's provenance refresh asks for
// after a save, in a repo of 2,000 keys of 10 revisions each.
func BenchmarkHistoryPageOfLargeRepo(b *testing.B) {
	s := benchStore(b)
	ctx := context.Background()
	for v := range 10 {
		for chunk := range 20 {
			entries := map[string]string{}
			for i := range 100 {
				entries[fmt.Sprintf("notes/k%04d.md", chunk*100+i)] = fmt.Sprint(v, value4K[:300])
			}
			if _, err := s.Apply(ctx, store.Write{Repo: "acme/app", Entries: entries, Subject: "bench"}); err != nil {
				b.Fatal(err)
			}
		}
	}
	for b.Loop() {
		n := 0
		err := s.History(ctx, store.HistoryQuery{Repo: "acme/app", Limit: 3, NoContent: true}, func(store.Revision) error { n++; return nil })
		if err != nil || n != 3 {
			b.Fatalf("History() = %d revisions, %v", n, err)
		}
	}
}
