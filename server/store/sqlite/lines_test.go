package sqlite

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/store"
)

// randomKey draws from a small alphabet, with multi-byte runes and
// prefixes of one another, so byte order matters and keys repeat.
func randomKey(r *rand.Rand) string {
	const alphabet = "aAb/._é日"
	runes := []rune(alphabet)
	n := 1 + r.IntN(4)
	key := make([]rune, n)
	for i := range key {
		key[i] = runes[r.IntN(len(runes))]
	}
	return string(key)
}

// randomLines returns a random sorted state and its map form.
func randomLines(r *rand.Rand, n int) ([]entryLine, map[string]string, map[string]int64) {
	live, deleted := map[string]string{}, map[string]int64{}
	for range n {
		k := randomKey(r)
		delete(live, k)
		delete(deleted, k)
		if r.IntN(3) == 0 {
			deleted[k] = r.Int64N(1 << 40)
		} else {
			live[k] = api.EntryChecksum(fmt.Sprint(r.Int()))
		}
	}
	return linesOf(live, deleted), live, deleted
}

func linesOf(live map[string]string, deleted map[string]int64) []entryLine {
	var lines []entryLine
	for k, sum := range live {
		lines = append(lines, entryLine{key: k, sum: sum})
	}
	for k, at := range deleted {
		lines = append(lines, entryLine{key: k, deletedAt: at})
	}
	sortLines(lines)
	return lines
}

// TestSumLinesMatchesRepoChecksum builds chains of states by random
// changes, each resuming from the saved hash states of the one before, and
// checks every checksum against the reference.
func TestSumLinesMatchesRepoChecksum(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for chain := range 20 {
		cur := emptyState("acme/app")
		live, deleted := map[string]string{}, map[string]int64{}
		for i := range 40 {
			_, cLive, cDeleted := randomLines(r, r.IntN(4)+r.IntN(2)*r.IntN(60))
			applyModel(live, deleted, cLive, cDeleted)
			next := &repoState{}
			lines, unchanged := mergeLines(cur.lines, linesOf(cLive, cDeleted))
			next.setLines(lines)
			if err := sumLines(next, cur, unchanged); err != nil {
				t.Fatal(err)
			}
			if want := api.RepoChecksum(live, deleted); next.checksum != want {
				t.Fatalf("sumLines(chain %d, state %d, %d keys, resumed at %d) = %s, want %s",
					chain, i, len(lines), unchanged, next.checksum, want)
			}
			if want := len(lines) / store.SumMarkEvery; next.marks.Len() != want {
				t.Fatalf("sumLines(chain %d, state %d) kept %d marks, want %d", chain, i, next.marks.Len(), want)
			}
			cur = next
		}
	}
}

// applyModel applies changes to the map form of a state.
func applyModel(live map[string]string, deleted map[string]int64, cLive map[string]string, cDeleted map[string]int64) {
	for k, sum := range cLive {
		delete(deleted, k)
		live[k] = sum
	}
	for k, at := range cDeleted {
		delete(live, k)
		deleted[k] = at
	}
}

func TestMergeLines(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 300 {
		lines, live, deleted := randomLines(r, r.IntN(40))
		before := slices.Clone(lines)
		_, cLive, cDeleted := randomLines(r, r.IntN(8))
		changes := linesOf(cLive, cDeleted)
		applyModel(live, deleted, cLive, cDeleted)
		got, first := mergeLines(lines, changes)
		if want := linesOf(live, deleted); !slices.Equal(got, want) {
			t.Fatalf("mergeLines(state %d) = %v, want %v", i, got, want)
		}
		if !slices.Equal(got[:first], lines[:first]) || (len(changes) > 0 && got[first].key != changes[0].key) {
			t.Fatalf("mergeLines(state %d) first change at %d, want the index of %v", i, first, changes[0])
		}
		if !slices.Equal(lines, before) {
			t.Fatalf("mergeLines(state %d) modified its input", i)
		}
	}
}

// TestRandomWritesChecksum applies random writes and deletes and checks
// every result against the reference checksum of a model, and the final
// state against a second handle that reads it from the file.
func TestRandomWritesChecksum(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), FileName)
	s := mustOpen(t, path)
	r := rand.New(rand.NewPCG(5, 6))
	live, deleted := map[string]string{}, map[string]int64{}
	for i := range 200 {
		w := store.Write{Repo: "acme/app", Entries: map[string]string{}, Time: t0}
		for range r.IntN(5) {
			w.Entries[randomKey(r)] = fmt.Sprint(r.IntN(3))
		}
		for range r.IntN(3) {
			if k := randomKey(r); w.Entries[k] == "" {
				w.Deletes = append(w.Deletes, k)
			}
		}
		res := mustApply(t, s, w)
		for k, v := range w.Entries {
			delete(deleted, k)
			live[k] = api.EntryChecksum(v)
		}
		for _, k := range w.Deletes {
			if _, ok := live[k]; ok {
				delete(live, k)
				deleted[k] = t0.UnixMilli()
			}
		}
		if want := api.RepoChecksum(live, deleted); res.Checksum != want {
			t.Fatalf("Apply(write %d).Checksum = %s, want %s", i, res.Checksum, want)
		}
	}
	snap, err := mustOpen(t, path).Snapshot(ctx, "acme/app", false)
	if err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(snap.EntryChecksums, live) || !maps.Equal(snap.Deleted, deleted) {
		t.Errorf("Snapshot(reopened) = %v %v, want %v %v", snap.EntryChecksums, snap.Deleted, live, deleted)
	}
	if want := api.RepoChecksum(snap.EntryChecksums, snap.Deleted); snap.Checksum != want {
		t.Errorf("Snapshot(reopened).Checksum = %s, want %s", snap.Checksum, want)
	}
}
