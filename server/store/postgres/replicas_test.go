package postgres

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/store"
	"github.com/teammemd/teammemd/server/store/postgres/pgtest"
)

// TestIfMatchAcrossReplicas races writers through two stores on one
// database, each with its own connection pool as two replicas have, all
// holding the same checksum: each round has exactly one winner, and the
// version goes up by one per round, never repeating.
func TestIfMatchAcrossReplicas(t *testing.T) {
	db := pgtest.Schema(t)
	replicas := []*Store{openURL(t, db), openURL(t, db)}
	const writers, rounds = 8, 10
	ctx := context.Background()
	current := api.EmptyRepoChecksum
	for round := 1; round <= rounds; round++ {
		results := make([]store.Result, writers)
		errs := make([]error, writers)
		var wg sync.WaitGroup
		for i := range writers {
			wg.Go(func() {
				results[i], errs[i] = replicas[i%2].Apply(ctx, store.Write{
					Repo: "acme/app", IfMatch: current, Subject: fmt.Sprint("writer", i), Time: time.Now(),
					Entries: map[string]string{fmt.Sprintf("r%d/w%d.md", round, i): "x"},
				})
			})
		}
		wg.Wait()
		winners := 0
		for i, err := range errs {
			switch {
			case err == nil:
				winners++
				current = results[i].Checksum
				if results[i].Version != int64(round) {
					t.Errorf("round %d: winner's Version = %d, want %d", round, results[i].Version, round)
				}
			case !errors.Is(err, store.ErrPrecondition):
				t.Fatalf("round %d: Apply(writer %d) error = %v, want nil or ErrPrecondition", round, i, err)
			}
		}
		if winners != 1 {
			t.Fatalf("round %d: %d writers won, want exactly 1", round, winners)
		}
	}
	for i, r := range replicas {
		snap, err := r.Snapshot(ctx, "acme/app", false)
		if err != nil || snap.Version != rounds || snap.Checksum != current || len(snap.EntryChecksums) != rounds {
			t.Errorf("replica %d Snapshot() = v%d %s %d entries, %v, want v%d %s %d entries", i, snap.Version, snap.Checksum, len(snap.EntryChecksums), err, rounds, current, rounds)
		}
	}
}

// TestVersionsNeverRepeat has writers on two replicas write to one repo
// without If-Match: every write gets its own version, and they are
// exactly 1 to N.
func TestVersionsNeverRepeat(t *testing.T) {
	db := pgtest.Schema(t)
	replicas := []*Store{openURL(t, db), openURL(t, db)}
	const writers, each = 6, 10
	versions := make(chan int64, writers*each)
	var wg sync.WaitGroup
	for i := range writers {
		wg.Go(func() {
			for n := range each {
				r, err := replicas[i%2].Apply(context.Background(), store.Write{Repo: "acme/app", Subject: "ann", Time: time.Now(),
					Entries: map[string]string{fmt.Sprintf("w%d.md", i): fmt.Sprint(n)}})
				if err != nil {
					t.Errorf("Apply() error = %v", err)
					return
				}
				versions <- r.Version
			}
		})
	}
	wg.Wait()
	close(versions)
	seen := map[int64]bool{}
	for v := range versions {
		if seen[v] || v < 1 || v > writers*each {
			t.Errorf("version %d repeated or out of 1..%d", v, writers*each)
		}
		seen[v] = true
	}
	if len(seen) != writers*each {
		t.Errorf("%d distinct versions, want %d", len(seen), writers*each)
	}
}
