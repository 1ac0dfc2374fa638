package storetest

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/store"
)

// revWant is the expected form of one revision.
type revWant struct {
	version int64
	subject string
	time    time.Time
	content string // "" with deleted set, or when pruned
	deleted bool
	pruned  bool
}

func checkRevisions(t *testing.T, what string, got []store.Revision, want []revWant) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s = %d revisions, want %d", what, len(got), len(want))
	}
	for i, w := range want {
		g := got[i]
		if g.Version != w.version || g.Subject != w.subject || !g.Time.Equal(w.time) || g.Deleted != w.deleted {
			t.Errorf("%s[%d] = v%d %s %v deleted=%v, want v%d %s %v deleted=%v",
				what, i, g.Version, g.Subject, g.Time, g.Deleted, w.version, w.subject, w.time, w.deleted)
		}
		checkSize(t, fmt.Sprintf("%s[%d]", what, i), g, w)
		switch {
		case w.deleted || w.pruned:
			if g.Content != nil {
				t.Errorf("%s[%d].Content = %q, want nil", what, i, *g.Content)
			}
		case g.Content == nil:
			t.Errorf("%s[%d].Content = nil, want %q", what, i, w.content)
		case *g.Content != w.content:
			t.Errorf("%s[%d].Content = %q, want %q", what, i, *g.Content, w.content)
		}
		wantSum := ""
		if !w.deleted {
			wantSum = entrySum(w.content)
		}
		if !w.pruned && g.Checksum != wantSum {
			t.Errorf("%s[%d].Checksum = %q, want %q", what, i, g.Checksum, wantSum)
		}
	}
}

// checkSize checks that a revision's size is its content's, and that a
// deletion or a pruned revision has none.
func checkSize(t *testing.T, what string, g store.Revision, w revWant) {
	t.Helper()
	switch {
	case w.deleted || w.pruned:
		if g.Size != nil {
			t.Errorf("%s.Size = %d, want nil", what, *g.Size)
		}
	case g.Size == nil || *g.Size != int64(len(w.content)):
		t.Errorf("%s.Size = %v, want %d", what, g.Size, len(w.content))
	}
}

func history(t *testing.T, s store.Store, q store.HistoryQuery) []store.Revision {
	t.Helper()
	revs, err := store.ListHistory(context.Background(), s, q)
	if err != nil {
		t.Fatalf("History(%+v) error = %v", q, err)
	}
	return revs
}

func testHistory(t *testing.T, s store.Store) {
	apply(t, s, store.Write{Repo: repo, Entries: map[string]string{"a.md": "one", "b.md": "B"}, Subject: "ann", Time: at(1)})
	apply(t, s, store.Write{Repo: repo, Entries: map[string]string{"a.md": "two"}, Subject: "bob", Time: at(2)})
	apply(t, s, store.Write{Repo: repo, Entries: map[string]string{"b.md": "B2"}, Subject: "bob", Time: at(3)})
	apply(t, s, store.Write{Repo: repo, Deletes: []string{"a.md"}, Subject: "carl", Time: at(4)})
	apply(t, s, store.Write{Repo: repo, Entries: map[string]string{"a.md": "two"}, Subject: "ann", Time: at(5)})
	apply(t, s, store.Write{Repo: repo, Entries: map[string]string{"a.md": "two"}, Subject: "dan", Time: at(6)}) // no-op
	checkRevisions(t, "History(a.md)", history(t, s, store.HistoryQuery{Repo: repo, Key: "a.md"}), []revWant{
		{version: 5, subject: "ann", time: at(5), content: "two"},
		{version: 4, subject: "carl", time: at(4), deleted: true},
		{version: 2, subject: "bob", time: at(2), content: "two"},
		{version: 1, subject: "ann", time: at(1), content: "one"},
	})
	checkRevisions(t, "History(b.md)", history(t, s, store.HistoryQuery{Repo: repo, Key: "b.md"}), []revWant{
		{version: 3, subject: "bob", time: at(3), content: "B2"},
		{version: 1, subject: "ann", time: at(1), content: "B"},
	})
	if got := history(t, s, store.HistoryQuery{Repo: repo, Key: "never.md"}); len(got) != 0 {
		t.Errorf("History(never.md) = %d revisions, want 0", len(got))
	}
}

func testHistoryPaging(t *testing.T, s store.Store) {
	var all []revWant
	for i := 1; i <= 7; i++ {
		v := string(rune('a' + i))
		apply(t, s, store.Write{Repo: repo, Entries: map[string]string{"k.md": v}, Time: at(i)})
		all = append([]revWant{{version: int64(i), subject: "ann", time: at(i), content: v}}, all...)
	}
	tests := []struct {
		before int64
		limit  int
		want   []revWant
	}{
		{0, 3, all[0:3]},
		{5, 3, all[3:6]},
		{2, 3, all[6:7]},
		{1, 3, nil},
		{0, 0, all},
		{100, 2, all[0:2]},
	}
	for _, tt := range tests {
		q := store.HistoryQuery{Repo: repo, Key: "k.md", Before: tt.before, Limit: tt.limit}
		checkRevisions(t, "History(before "+itoa(tt.before)+" limit "+itoa(int64(tt.limit))+")", history(t, s, q), tt.want)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func testPruneHistory(t *testing.T, s store.Store) {
	ctx := context.Background()
	for i := 1; i <= 5; i++ {
		apply(t, s, store.Write{Repo: repo, Entries: map[string]string{"a.md": "a" + itoa(int64(i)), "b.md": "b" + itoa(int64(i))}, Time: at(i)})
	}
	apply(t, s, store.Write{Repo: repo, Deletes: []string{"b.md"}, Time: at(6)})
	// Newest 2 of each key kept; anything at or after at(3) kept.
	n, err := s.PruneHistory(ctx, 2, at(3).Add(-time.Millisecond))
	if err != nil {
		t.Fatalf("PruneHistory() error = %v", err)
	}
	if n != 4 {
		t.Errorf("PruneHistory(keep 2, before at(3)) = %d, want 4", n)
	}
	checkRevisions(t, "History(a.md) after prune", history(t, s, store.HistoryQuery{Repo: repo, Key: "a.md"}), []revWant{
		{version: 5, subject: "ann", time: at(5), content: "a5"},
		{version: 4, subject: "ann", time: at(4), content: "a4"},
		{version: 3, subject: "ann", time: at(3), content: "a3"},
		{version: 2, subject: "ann", time: at(2), pruned: true},
		{version: 1, subject: "ann", time: at(1), pruned: true},
	})
	n, err = s.PruneHistory(ctx, 1, at(100))
	if err != nil {
		t.Fatalf("PruneHistory() error = %v", err)
	}
	if n != 5 {
		t.Errorf("PruneHistory(keep 1, all old) = %d, want 5", n)
	}
	checkRevisions(t, "History(b.md) after prune", history(t, s, store.HistoryQuery{Repo: repo, Key: "b.md"}), []revWant{
		{version: 6, subject: "ann", time: at(6), deleted: true},
		{version: 5, subject: "ann", time: at(5), pruned: true},
		{version: 4, subject: "ann", time: at(4), pruned: true},
		{version: 3, subject: "ann", time: at(3), pruned: true},
		{version: 2, subject: "ann", time: at(2), pruned: true},
		{version: 1, subject: "ann", time: at(1), pruned: true},
	})
	if n, err := s.PruneHistory(ctx, 1, at(100)); err != nil || n != 0 {
		t.Errorf("PruneHistory(again) = %d, %v, want 0, nil", n, err)
	}
	wantEntries(t, snapshot(t, s, repo), map[string]string{"a.md": "a5"})
}
