package sqlite

import (
	"context"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/server/store"
)

// TestHistoryPagesReadInOrder: a page of a repo's history, of one key or
// of every key, walks an index in the page's order and stops at its
// limit, where a sort of every revision of the repo would grow with its
// history.
func TestHistoryPagesReadInOrder(t *testing.T) {
	s, ctx := openWithANote(t)
	for _, q := range []store.HistoryQuery{
		{Repo: "acme/app", Limit: 3, NoContent: true},
		{Repo: "acme/app", Before: 2, BeforeKey: "a.md", Limit: 50},
		{Repo: "acme/app", Key: "a.md", Limit: 3},
	} {
		query, args, err := historyQuery(ctx, s.pool(), q)
		if err != nil {
			t.Fatal(err)
		}
		plan := queryPlan(t, s, query, args...)
		if strings.Contains(plan, "TEMP B-TREE") || !strings.Contains(plan, "USING INDEX") {
			t.Errorf("plan of %+v:\n%s\nwant an index in order, no sort", q, plan)
		}
	}
}

// TestReadsKeepTheirStatements: the reads a save brings about run
// statements compiled once, and a store holds no more than maxReadStmts.
func TestReadsKeepTheirStatements(t *testing.T) {
	s, ctx := openWithANote(t)
	q := store.HistoryQuery{Repo: "acme/app", Limit: 3, NoContent: true}
	for range 2 {
		if err := s.History(ctx, q, func(store.Revision) error { return nil }); err != nil {
			t.Fatal(err)
		}
		if _, err := s.StoreID(ctx); err != nil {
			t.Fatal(err)
		}
	}
	query, _, err := historyQuery(ctx, s.pool(), q)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{query, selectRepo} {
		if s.reads.held(want) == nil {
			t.Errorf("no statement kept for %q", want)
		}
	}
	for i := range maxReadStmts + 10 {
		var n int
		if err := s.pool().QueryRowContext(ctx, "SELECT ? + "+strings.Repeat("1 + ", i)+"0", 1).Scan(&n); err != nil || n != i+1 {
			t.Fatalf("query %d = %d, %v", i, n, err)
		}
	}
	if n := len(s.reads.stmts); n != maxReadStmts {
		t.Errorf("statements kept = %d, want %d", n, maxReadStmts)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if n := len(s.reads.stmts); n != 0 {
		t.Errorf("statements kept after Close = %d, want 0", n)
	}
}

// queryPlan returns the lines of EXPLAIN QUERY PLAN of query.
func queryPlan(t *testing.T, s *Store, query string, args ...any) string {
	t.Helper()
	rows, err := s.rdb.Query("EXPLAIN QUERY PLAN "+query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var lines []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, detail)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return strings.Join(lines, "\n")
}

// openWithANote opens a store with one note written to acme/app.
func openWithANote(t *testing.T) (*Store, context.Context) {
	t.Helper()
	s := openTemp(t)
	ctx := context.Background()
	if _, err := s.Apply(ctx, store.Write{Repo: "acme/app", Entries: map[string]string{"a.md": "A"}, Subject: "alice"}); err != nil {
		t.Fatal(err)
	}
	return s, ctx
}
