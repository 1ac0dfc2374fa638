package sqlite

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/server/store"
)

// TestPurgeProposalBytesDoNotLinger purges a rejected proposal: its
// content is in no file of the database after.
func TestPurgeProposalBytesDoNotLinger(t *testing.T) {
	dir := t.TempDir()
	s := mustOpen(t, filepath.Join(dir, FileName))
	const marker = "SECRET-Pq7Pq7Pq7"
	ctx := context.Background()
	p, err := s.Propose(ctx, store.Proposal{Repo: "acme/app", Subject: "ann", Time: t0,
		Base: map[string]string{"a.md": ""}, Entries: map[string]string{"a.md": strings.Repeat(marker+" ", 400)}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.DecideProposal(ctx, store.Decision{ID: p.ID, State: store.ProposalRejected, Reviewer: "carol", Reason: "a key", Time: t0}); err != nil {
		t.Fatal(err)
	}
	if got := filesHolding(t, dir, marker); len(got) == 0 {
		t.Fatal("the proposal's content is in no file before the purge: the check cannot see it")
	}
	if _, err := s.PurgeProposal(ctx, p.ID, "carol", t0); err != nil {
		t.Fatal(err)
	}
	if got := filesHolding(t, dir, marker); len(got) > 0 {
		t.Errorf("after the purge %v still hold the proposal's content", got)
	}
}
