package postgres

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/store"
)

// TestQueueWriteChecksum runs random writes, deletions and marker
// compactions through queueWrite, each from the state the one before left,
// and wants every state's checksum to be api.RepoChecksum of its keys.
func TestQueueWriteChecksum(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	cur := &repoState{slug: "acme/app", checksum: api.EmptyRepoChecksum, live: map[string]string{}, deleted: map[string]int64{}}
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 500 {
		p := store.WritePlan{Upserts: map[string]store.Upsert{}}
		for range rng.IntN(4) {
			k := fmt.Sprintf("notes/k%03d.md", rng.IntN(200))
			p.Upserts[k] = store.Upsert{Value: fmt.Sprint(i), Checksum: api.EntryChecksum(fmt.Sprint(i))}
		}
		for k := range cur.live {
			if _, written := p.Upserts[k]; !written && rng.IntN(8) == 0 {
				p.Deletes = append(p.Deletes, k)
			}
		}
		p.Changed = slices.Sorted(maps.Keys(p.Upserts)) // as store.PlanWrite fills it
		p.Changed = slices.Sorted(slices.Values(append(p.Changed, p.Deletes...)))
		w := store.Write{Repo: cur.slug, Time: start.Add(time.Duration(i) * time.Minute)}
		if rng.IntN(5) == 0 {
			w.Deletions = store.DeletionBound{Max: rng.IntN(6)}
		}
		next, err := queueWrite(&pgx.Batch{}, cur, p, w)
		if err != nil {
			t.Fatal(err)
		}
		cur = next
		if want := api.RepoChecksum(cur.live, cur.deleted); cur.checksum != want {
			t.Fatalf("write %d: checksum = %s, want %s", i, cur.checksum, want)
		}
		if got, want := len(cur.keys), len(cur.live)+len(cur.deleted); got != want {
			t.Fatalf("write %d: %d sorted keys, want %d", i, got, want)
		}
		if want := len(cur.keys) / store.SumMarkEvery; cur.marks.Len() != want {
			t.Fatalf("write %d: %d saved hash states, want %d", i, cur.marks.Len(), want)
		}
	}
}
