package main

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/store"
	"github.com/teammemd/teammemd/server/store/sqlite"
)

// queryLog is a real store that records the history queries made of it.
type queryLog struct {
	*sqlite.Store
	queries []store.HistoryQuery
}

func (s *queryLog) History(ctx context.Context, q store.HistoryQuery, yield func(store.Revision) error) error {
	s.queries = append(s.queries, q)
	return s.Store.History(ctx, q, yield)
}

// restoredStore holds a.md written, overwritten and written back, and
// b.md written, a second apart from at on, in acme/app.
func restoredStore(t *testing.T, at time.Time) *queryLog {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), sqlite.FileName), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	for i, w := range []store.Write{
		{Entries: map[string]string{"a.md": "one"}},
		{Entries: map[string]string{"a.md": "two"}},
		{Entries: map[string]string{"a.md": "one"}},
		{Entries: map[string]string{"b.md": "b"}},
	} {
		w.Repo, w.Subject, w.Time = "acme/app", "ann", at.Add(time.Duration(i)*time.Second)
		if _, err := st.Apply(context.Background(), w); err != nil {
			t.Fatal(err)
		}
	}
	return &queryLog{Store: st}
}

// TestAuditReadsNoContent: the audit never asks the store for content,
// and --since narrows the store's query; a restore after the time given of
// content written before it is still told from a write.
func TestAuditReadsNoContent(t *testing.T) {
	at := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	since := at.Add(2 * time.Second)
	tests := []struct {
		repo string
		from time.Time
		want string
	}{
		{"acme/app", since, "restored a.md 3, wrote b.md 4"},
		{"", since, "restored a.md 3, wrote b.md 4"},
		{"acme/app", time.Time{}, "wrote a.md 1, wrote a.md 2, restored a.md 3, wrote b.md 4"},
	}
	for _, tt := range tests {
		st := restoredStore(t, at)
		events, err := audit(context.Background(), st, tt.repo, tt.from)
		if err != nil {
			t.Fatalf("audit(%q, %v) error = %v", tt.repo, tt.from, err)
		}
		var got []string
		for _, e := range events {
			got = append(got, e.Action+" "+e.Key+" "+strconv.FormatInt(e.Version, 10))
		}
		if strings.Join(got, ", ") != tt.want {
			t.Errorf("audit(%q, %v) = %q, want %q", tt.repo, tt.from, strings.Join(got, ", "), tt.want)
		}
		for i, q := range st.queries {
			if !q.NoContent {
				t.Errorf("audit(%q, %v) query %d = %+v, want no content", tt.repo, tt.from, i, q)
			}
		}
		if len(st.queries) == 0 || !st.queries[0].Since.Equal(tt.from) {
			t.Errorf("audit(%q, %v) queries = %+v, want the first from %v on", tt.repo, tt.from, st.queries, tt.from)
		}
	}
}
