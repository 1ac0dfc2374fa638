package storetest

import (
	"context"
	"testing"

	"github.com/teammemd/teammemd/server/store"
)

// testRevisionClient checks that each revision keeps the client of its
// write, deletions and writes without one too, in the history of a key and
// of a repo, with content and without, and in an export.
func testRevisionClient(t *testing.T, s store.Store) {
	const laptop = "token:t1 via teammemd/1.4.0 (linux/amd64) on ann-laptop"
	const claude = "claude via claude-cli/2.1.0 (external, cli)"
	apply(t, s, store.Write{Repo: repo, Entries: map[string]string{"a.md": "one", "b.md": "B"}, Client: laptop, Time: at(1)})
	apply(t, s, store.Write{Repo: repo, Deletes: []string{"b.md"}, Client: claude, Time: at(2)})
	apply(t, s, store.Write{Repo: repo, Entries: map[string]string{"a.md": "two"}, Time: at(3)})
	want := map[string]string{"a.md@3": "", "b.md@2": claude, "a.md@1": laptop, "b.md@1": laptop}
	for _, q := range []store.HistoryQuery{
		{Repo: repo}, {Repo: repo, NoContent: true},
		{Repo: repo, Key: "a.md"}, {Repo: repo, Key: "b.md", NoContent: true}, {},
	} {
		for _, r := range history(t, s, q) {
			if w := want[r.Key+"@"+itoa(r.Version)]; r.Client != w {
				t.Errorf("History(%+v): %s v%d Client = %q, want %q", q, r.Key, r.Version, r.Client, w)
			}
		}
	}
	ex, ok := s.(store.Exporter)
	if !ok {
		return
	}
	d, err := ex.ExportRepo(context.Background(), repo)
	if err != nil {
		t.Fatalf("ExportRepo(%s) error = %v", repo, err)
	}
	if len(d.Revisions) != len(want) {
		t.Fatalf("ExportRepo(%s) = %d revisions, want %d", repo, len(d.Revisions), len(want))
	}
	for _, r := range d.Revisions {
		if w := want[r.Key+"@"+itoa(r.Version)]; r.Client != w {
			t.Errorf("ExportRepo: %s v%d Client = %q, want %q", r.Key, r.Version, r.Client, w)
		}
	}
}

// WantClientlessRevision checks s, opened on a database written by a
// schema before revisions kept their client and holding one revision,
// ann's, of a.md in acme/app with the content A: the revision keeps its
// subject and content, and has no client.
func WantClientlessRevision(t *testing.T, s store.Store) {
	t.Helper()
	revs := history(t, s, store.HistoryQuery{Repo: repo})
	if len(revs) != 1 || revs[0].Subject != "ann" || revs[0].Client != "" || revs[0].Content == nil || *revs[0].Content != "A" {
		t.Errorf("History(%s) after the upgrade = %+v, want ann's revision with content A and no client", repo, revs)
	}
}
