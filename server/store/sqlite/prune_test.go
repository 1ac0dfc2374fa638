package sqlite

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/store"
)

// pruneFixture writes revisions to two repos: key i of each gets 1 to 6
// revisions, one second apart, and every third key is deleted once on the
// way. It returns the keys written per repo.
func pruneFixture(t *testing.T, s *Store) map[string][]string {
	keys := map[string][]string{}
	at := 0
	for _, repo := range []string{"acme/a", "acme/b"} {
		for i := range 6 {
			key := fmt.Sprintf("k%d.md", i)
			keys[repo] = append(keys[repo], key)
			for rev := range 1 + (i*5)%6 {
				at++
				w := store.Write{Repo: repo, Entries: map[string]string{key: fmt.Sprint(rev)}, Time: t0.Add(time.Duration(at) * time.Second)}
				if i%3 == 0 && rev == 1 {
					w = store.Write{Repo: repo, Deletes: []string{key}, Time: w.Time}
				}
				mustApply(t, s, w)
			}
		}
	}
	return keys
}

// wantPruned lists, per repo and key, the versions a prune must clear:
// those with content, older than olderThan and not among the newest keep.
func wantPruned(t *testing.T, s *Store, keys map[string][]string, keep int, olderThan time.Time) (map[string]bool, int64) {
	want, n := map[string]bool{}, int64(0)
	for repo, list := range keys {
		for _, key := range list {
			revs, err := store.ListHistory(context.Background(), s, store.HistoryQuery{Repo: repo, Key: key})
			if err != nil {
				t.Fatal(err)
			}
			for i, rev := range revs {
				if i >= keep && rev.Time.Before(olderThan) && rev.Content != nil {
					want[fmt.Sprint(repo, key, rev.Version)] = true
					n++
				}
			}
		}
	}
	return want, n
}

func checkPruned(t *testing.T, s *Store, keys map[string][]string, want map[string]bool) {
	t.Helper()
	for repo, list := range keys {
		for _, key := range list {
			revs, _ := store.ListHistory(context.Background(), s, store.HistoryQuery{Repo: repo, Key: key})
			for _, rev := range revs {
				id := fmt.Sprint(repo, key, rev.Version)
				if pruned := rev.Content == nil && !rev.Deleted; pruned != want[id] {
					t.Errorf("History(%s %s) v%d pruned = %v, want %v", repo, key, rev.Version, pruned, want[id])
				}
			}
		}
	}
}

// TestPruneInSteps prunes in steps of 4 revisions and writes between
// steps: each step holds the write lock only for itself, and together they
// clear exactly what one prune of the whole table would.
func TestPruneInSteps(t *testing.T) {
	for _, keep := range []int{0, 1, 2} {
		t.Run(fmt.Sprint("keep ", keep), func(t *testing.T) {
			ctx := context.Background()
			s := openTemp(t)
			keys := pruneFixture(t, s)
			olderThan := t0.Add(30 * time.Second)
			want, wantN := wantPruned(t, s, keys, keep, olderThan)
			if wantN == 0 {
				t.Fatal("fixture leaves nothing to prune")
			}
			var total int64
			steps, from, more := 0, store.RevisionKey{}, true
			for more {
				var n int64
				var err error
				n, from, more, err = store.PruneStep(ctx, sharedSQL{sqlQuerier(s.rdb), s.wdb, s.full}, from, 4, keep, olderThan)
				if err != nil {
					t.Fatalf("PruneStep(%d) error = %v", steps, err)
				}
				total += n
				steps++
				mustApply(t, s, store.Write{Repo: "acme/z", Entries: map[string]string{"between.md": fmt.Sprint(steps)}, Time: olderThan})
			}
			if total != wantN || steps < 10 {
				t.Errorf("PruneStep cleared %d in %d steps, want %d in at least 10", total, steps, wantN)
			}
			checkPruned(t, s, keys, want)
			if n, err := s.PruneHistory(ctx, keep, olderThan); n != 0 || err != nil {
				t.Errorf("PruneHistory(again) = %d, %v, want 0, nil", n, err)
			}
		})
	}
}

func TestPruneHistoryWholeTable(t *testing.T) {
	s := openTemp(t)
	keys := pruneFixture(t, s)
	olderThan := t0.Add(40 * time.Second)
	want, wantN := wantPruned(t, s, keys, 1, olderThan)
	if n, err := s.PruneHistory(context.Background(), 1, olderThan); n != wantN || err != nil {
		t.Errorf("PruneHistory() = %d, %v, want %d, nil", n, err, wantN)
	}
	checkPruned(t, s, keys, want)
}

func TestPruneHistoryCanceled(t *testing.T) {
	s := openTemp(t)
	pruneFixture(t, s)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if n, err := s.PruneHistory(ctx, 0, t0.Add(time.Hour)); n != 0 || !errors.Is(err, context.Canceled) {
		t.Errorf("PruneHistory(canceled) = %d, %v, want 0, context.Canceled", n, err)
	}
}

// TestPruneStepBoundedByContent prunes large revisions: a step stops once
// it covers store.PruneBytes of content, however many revisions it may take.
func TestPruneStepBoundedByContent(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	big := strings.Repeat("x", store.PruneBytes/3)
	for i := range 10 {
		mustApply(t, s, store.Write{Repo: "acme/app", Entries: map[string]string{"big.md": fmt.Sprint(i, big)}})
	}
	var total int64
	steps, from, more := 0, store.RevisionKey{}, true
	for more {
		var n int64
		var err error
		n, from, more, err = store.PruneStep(ctx, sharedSQL{sqlQuerier(s.rdb), s.wdb, s.full}, from, store.PruneBatch, 1, t0.Add(time.Hour))
		if err != nil || n > 3 {
			t.Fatalf("PruneStep(%d) = %d, %v, want at most 3 cleared", steps, n, err)
		}
		total += n
		steps++
	}
	if total != 9 || steps < 4 {
		t.Errorf("PruneStep cleared %d in %d steps, want 9 in at least 4", total, steps)
	}
}
