package storetest

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/teammemd/teammemd/server/store"
)

// testHistorySince: Since leaves out the revisions written before it, for
// one key, one repo and every repo, within a page as without.
func testHistorySince(t *testing.T, s store.Store) {
	apply(t, s, store.Write{Repo: repo, Entries: map[string]string{"a.md": "one", "b.md": "B"}, Time: at(1)})
	apply(t, s, store.Write{Repo: repo, Entries: map[string]string{"a.md": "two"}, Time: at(2)})
	apply(t, s, store.Write{Repo: "acme/other", Entries: map[string]string{"z.md": "Z"}, Time: at(3)})
	apply(t, s, store.Write{Repo: repo, Deletes: []string{"b.md"}, Time: at(4)})
	tests := []struct {
		q    store.HistoryQuery
		want []string
	}{
		{store.HistoryQuery{Repo: repo, Key: "a.md", Since: at(2)}, []string{repo + " v2 a.md"}},
		{store.HistoryQuery{Repo: repo, Since: at(2)}, []string{repo + " v3 b.md deleted", repo + " v2 a.md"}},
		{store.HistoryQuery{Repo: repo, Since: at(2), Before: 3}, []string{repo + " v2 a.md"}},
		{store.HistoryQuery{Repo: repo, Since: at(2), Limit: 1}, []string{repo + " v3 b.md deleted"}},
		{store.HistoryQuery{Since: at(3)}, []string{repo + " v3 b.md deleted", "acme/other v1 z.md"}},
		{store.HistoryQuery{Repo: repo, Since: at(5)}, []string{}},
		{store.HistoryQuery{Repo: repo, Since: at(1), NoContent: true}, []string{repo + " v3 b.md deleted", repo + " v2 a.md", repo + " v1 a.md", repo + " v1 b.md"}},
	}
	for _, tt := range tests {
		checkIDs(t, fmt.Sprintf("History(%+v)", tt.q), history(t, s, tt.q), tt.want)
	}
}

// testHistoryStops: History stops at the first error its callback
// returns, and returns that error.
func testHistoryStops(t *testing.T, s store.Store) {
	for i := 1; i <= 5; i++ {
		apply(t, s, store.Write{Repo: repo, Entries: map[string]string{"a.md": itoa(int64(i))}, Time: at(i)})
	}
	stop := errors.New("stop")
	for _, q := range []store.HistoryQuery{{Repo: repo, Key: "a.md"}, {Repo: repo}, {}} {
		calls := 0
		err := s.History(context.Background(), q, func(store.Revision) error {
			calls++
			if calls == 2 {
				return stop
			}
			return nil
		})
		if !errors.Is(err, stop) || calls != 2 {
			t.Errorf("History(%+v) with a callback that fails on the 2nd revision = %v after %d calls, want its error after 2", q, err, calls)
		}
	}
}
