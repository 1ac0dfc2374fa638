package storetest

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/teammemd/teammemd/server/store"
)

// revID names a revision by repo, version and key, for comparing orders.
func revIDs(revs []store.Revision) []string {
	out := make([]string, len(revs))
	for i, r := range revs {
		out[i] = fmt.Sprintf("%s v%d %s", r.Repo, r.Version, r.Key)
		if r.Deleted {
			out[i] += " deleted"
		}
	}
	return out
}

func checkIDs(t *testing.T, what string, got []store.Revision, want []string) {
	t.Helper()
	ids := revIDs(got)
	if fmt.Sprint(ids) != fmt.Sprint(want) {
		t.Errorf("%s = %q, want %q", what, ids, want)
	}
}

// testRepoHistory: with no key, History lists every key's revisions of the
// repo by version then key, newest first, each naming its repo and key;
// the cursor (Before, BeforeKey) can split a version between pages.
func testRepoHistory(t *testing.T, s store.Store) {
	apply(t, s, store.Write{Repo: repo, Entries: map[string]string{"a.md": "one", "b.md": "B"}, Time: at(1)})
	apply(t, s, store.Write{Repo: repo, Entries: map[string]string{"a.md": "two"}, Time: at(2)})
	apply(t, s, store.Write{Repo: repo, Deletes: []string{"a.md"}, Entries: map[string]string{"c.md": "C"}, Time: at(3)})
	apply(t, s, store.Write{Repo: "acme/other", Entries: map[string]string{"z.md": "Z"}, Time: at(4)})
	all := []string{repo + " v3 a.md deleted", repo + " v3 c.md", repo + " v2 a.md", repo + " v1 a.md", repo + " v1 b.md"}
	tests := []struct {
		before    int64
		beforeKey string
		limit     int
		want      []string
	}{
		{0, "", 0, all},
		{0, "", 1, all[:1]},
		{3, "a.md", 2, all[1:3]},
		{1, "a.md", 0, all[4:]},
		{2, "", 0, all[3:]},
		{3, "c.md", 0, all[2:]},
	}
	for _, tt := range tests {
		q := store.HistoryQuery{Repo: repo, Before: tt.before, BeforeKey: tt.beforeKey, Limit: tt.limit}
		checkIDs(t, fmt.Sprintf("History(%s before %d %q limit %d)", repo, tt.before, tt.beforeKey, tt.limit), history(t, s, q), tt.want)
	}
	revs := history(t, s, store.HistoryQuery{Repo: repo})
	if revs[1].Content == nil || *revs[1].Content != "C" || revs[1].Subject != "ann" || !revs[1].Time.Equal(at(3)) {
		t.Errorf("History(%s)[1] = %+v, want c.md = C by ann at %v", repo, revs[1], at(3))
	}
	checkIDs(t, "History(every repo)", history(t, s, store.HistoryQuery{}), append(all, "acme/other v1 z.md"))
	one := history(t, s, store.HistoryQuery{Repo: repo, Key: "a.md"})
	if len(one) == 0 || one[0].Repo != repo || one[0].Key != "a.md" {
		t.Errorf("History(%s, a.md)[0] = %+v, want its repo and key set", repo, one)
	}
	if _, err := store.ListHistory(context.Background(), s, store.HistoryQuery{Repo: "acme/never"}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("History(acme/never) error = %v, want ErrNotFound", err)
	}
}

// testEveryRepoHistoryEmpty: a store with no repo has no revisions.
func testEveryRepoHistoryEmpty(t *testing.T, s store.Store) {
	if got := history(t, s, store.HistoryQuery{}); len(got) != 0 {
		t.Errorf("History(every repo of an empty store) = %d revisions, want 0", len(got))
	}
}

// testHistoryNoContent: NoContent lists the same revisions, with their
// checksums, subjects, times and sizes, and no content, for one key, one repo and
// every repo.
func testHistoryNoContent(t *testing.T, s store.Store) {
	apply(t, s, store.Write{Repo: repo, Entries: map[string]string{"a.md": "one", "b.md": "B"}, Subject: "ann", Time: at(1)})
	apply(t, s, store.Write{Repo: repo, Deletes: []string{"a.md"}, Subject: "bob", Time: at(2)})
	for _, q := range []store.HistoryQuery{{Repo: repo, Key: "a.md"}, {Repo: repo}, {}} {
		full := history(t, s, q)
		q.NoContent = true
		bare := history(t, s, q)
		if len(bare) != len(full) || len(bare) == 0 {
			t.Fatalf("History(%+v) = %d revisions, want %d", q, len(bare), len(full))
		}
		for i, got := range bare {
			want := full[i]
			if got.Content != nil {
				t.Errorf("History(%+v)[%d].Content = %q, want nil", q, i, *got.Content)
			}
			if got.Repo != want.Repo || got.Key != want.Key || got.Version != want.Version || got.Checksum != want.Checksum ||
				got.Deleted != want.Deleted || got.Subject != want.Subject || !got.Time.Equal(want.Time) ||
				fmt.Sprint(deref(got.Size)) != fmt.Sprint(deref(want.Size)) {
				t.Errorf("History(%+v)[%d] = %+v, want %+v but for its content", q, i, got, want)
			}
		}
	}
}

// deref is *p, or "none" for nil.
func deref[T any](p *T) any {
	if p == nil {
		return "none"
	}
	return *p
}
