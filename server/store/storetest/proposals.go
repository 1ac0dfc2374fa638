package storetest

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/teammemd/teammemd/server/store"
)

// ProposalsOpener returns a fresh proposal store for one subtest and
// arranges, with t.Cleanup, for it to be closed.
type ProposalsOpener func(t *testing.T) store.Proposals

// RunProposals runs every Proposals conformance test, each on a fresh
// store.
func RunProposals(t *testing.T, open ProposalsOpener) {
	runEach(t, open, []subtest[store.Proposals]{
		{"ProposeAndRead", testProposeAndRead},
		{"ProposalNotFound", testProposalNotFound},
		{"ListProposals", testListProposals},
		{"Approve", testApproveProposal},
		{"DecideOnce", testDecideOnce},
		{"DecisionChecked", testDecisionChecked},
		{"PurgeRejected", testPurgeRejected},
		{"PurgeOnlyRejected", testPurgeOnlyRejected},
	})
}

func proposal(repo, subject string, n int) store.Proposal {
	return store.Proposal{
		Repo: repo, Subject: subject, Time: at(n),
		Base:    map[string]string{"a.md": "", "old.md": entrySum("old"), "é/b.md": entrySum("b")},
		Entries: map[string]string{"a.md": "new\r\n\ufeffbytes", "é/b.md": ""},
		Deletes: []string{"old.md"},
	}
}

func propose(t *testing.T, s store.Proposals, p store.Proposal) store.Proposal {
	t.Helper()
	got, err := s.Propose(context.Background(), p)
	if err != nil {
		t.Fatalf("Propose: %v", err)
	}
	return got
}

func testProposeAndRead(t *testing.T, s store.Proposals) {
	want := proposal("acme/app", "alice", 1)
	first := propose(t, s, want)
	second := propose(t, s, proposal("acme/app", "bob", 2))
	if first.ID <= 0 || second.ID <= first.ID {
		t.Fatalf("Propose ids = %d, %d, want positive and increasing", first.ID, second.ID)
	}
	got, err := s.Proposal(context.Background(), first.ID)
	if err != nil {
		t.Fatalf("Proposal(%d): %v", first.ID, err)
	}
	want.ID, want.State = first.ID, store.ProposalPending
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Proposal(%d) = %+v, want %+v", first.ID, got, want)
	}
	if keys := got.Keys(); !reflect.DeepEqual(keys, []string{"a.md", "old.md", "é/b.md"}) {
		t.Errorf("Keys() = %q", keys)
	}
}

func testProposalNotFound(t *testing.T, s store.Proposals) {
	ctx := context.Background()
	if _, err := s.Proposal(ctx, 42); !errors.Is(err, store.ErrProposalNotFound) {
		t.Errorf("Proposal(42) error = %v, want ErrProposalNotFound", err)
	}
	d := store.Decision{ID: 42, State: store.ProposalRejected, Reviewer: "carol", Time: at(1)}
	if _, err := s.DecideProposal(ctx, d); !errors.Is(err, store.ErrProposalNotFound) {
		t.Errorf("DecideProposal(42) error = %v, want ErrProposalNotFound", err)
	}
	if _, err := s.PurgeProposal(ctx, 42, "carol", at(1)); !errors.Is(err, store.ErrProposalNotFound) {
		t.Errorf("PurgeProposal(42) error = %v, want ErrProposalNotFound", err)
	}
}

func testListProposals(t *testing.T, s store.Proposals) {
	ctx := context.Background()
	a := propose(t, s, proposal("acme/app", "alice", 1))
	b := propose(t, s, proposal("acme/other", "alice", 2))
	c := propose(t, s, proposal("acme/app", "bob", 3))
	decide(t, s, store.Decision{ID: c.ID, State: store.ProposalRejected, Reviewer: "carol", Reason: "stale", Time: at(4)})
	tests := []struct {
		q    store.ProposalQuery
		want []int64
	}{
		{store.ProposalQuery{}, []int64{a.ID, b.ID, c.ID}},
		{store.ProposalQuery{Repo: "acme/app"}, []int64{a.ID, c.ID}},
		{store.ProposalQuery{State: store.ProposalPending}, []int64{a.ID, b.ID}},
		{store.ProposalQuery{Repo: "acme/app", State: store.ProposalRejected}, []int64{c.ID}},
		{store.ProposalQuery{Subject: "alice"}, []int64{a.ID, b.ID}},
		{store.ProposalQuery{AfterID: a.ID}, []int64{b.ID, c.ID}},
		{store.ProposalQuery{Repo: "acme/none"}, nil},
	}
	for _, tt := range tests {
		got, err := s.ListProposals(ctx, tt.q)
		if err != nil {
			t.Fatalf("ListProposals(%+v): %v", tt.q, err)
		}
		var ids []int64
		for _, p := range got {
			ids = append(ids, p.ID)
		}
		if !reflect.DeepEqual(ids, tt.want) {
			t.Errorf("ListProposals(%+v) = %v, want %v", tt.q, ids, tt.want)
		}
	}
	bare, err := s.ListProposals(ctx, store.ProposalQuery{Repo: "acme/other", NoContent: true})
	if err != nil || len(bare) != 1 {
		t.Fatalf("ListProposals(NoContent) = %v, %v", bare, err)
	}
	if bare[0].Entries != nil || bare[0].Deletes != nil || len(bare[0].Base) != 3 {
		t.Errorf("ListProposals(NoContent) = %+v, want the base without content", bare[0])
	}
}

func decide(t *testing.T, s store.Proposals, d store.Decision) store.Proposal {
	t.Helper()
	p, err := s.DecideProposal(context.Background(), d)
	if err != nil {
		t.Fatalf("DecideProposal(%+v): %v", d, err)
	}
	return p
}

func testApproveProposal(t *testing.T, s store.Proposals) {
	p := propose(t, s, proposal("acme/app", "alice", 1))
	got := decide(t, s, store.Decision{ID: p.ID, State: store.ProposalApproved, Reviewer: "carol", Time: at(2), Version: 7, Edited: true})
	if got.State != store.ProposalApproved || got.Reviewer != "carol" || !got.Decided.Equal(at(2)) || got.Version != 7 || !got.Edited {
		t.Errorf("DecideProposal = %+v, want approved by carol at version 7, edited", got)
	}
	if got.Entries["a.md"] != p.Entries["a.md"] {
		t.Errorf("an approved proposal's content = %q, want it kept", got.Entries["a.md"])
	}
}

func testDecideOnce(t *testing.T, s store.Proposals) {
	p := propose(t, s, proposal("acme/app", "alice", 1))
	decide(t, s, store.Decision{ID: p.ID, State: store.ProposalRejected, Reviewer: "carol", Reason: "wrong port", Time: at(2)})
	again := store.Decision{ID: p.ID, State: store.ProposalApproved, Reviewer: "dave", Time: at(3), Version: 9}
	got, err := s.DecideProposal(context.Background(), again)
	if !errors.Is(err, store.ErrProposalDecided) {
		t.Fatalf("second DecideProposal error = %v, want ErrProposalDecided", err)
	}
	if got.State != store.ProposalRejected || got.Reviewer != "carol" || got.Reason != "wrong port" || got.Version != 0 {
		t.Errorf("after a refused second decision = %+v, want the first kept", got)
	}
}

func testDecisionChecked(t *testing.T, s store.Proposals) {
	p := propose(t, s, proposal("acme/app", "alice", 1))
	for _, d := range []store.Decision{
		{ID: p.ID, State: store.ProposalPending, Reviewer: "carol", Time: at(2)},
		{ID: p.ID, State: store.ProposalApproved, Time: at(2)},
	} {
		if _, err := s.DecideProposal(context.Background(), d); err == nil {
			t.Errorf("DecideProposal(%+v) = nil error, want one", d)
		}
	}
	got, err := s.Proposal(context.Background(), p.ID)
	if err != nil || got.State != store.ProposalPending {
		t.Errorf("after refused decisions: %+v, %v, want pending", got, err)
	}
}

func testPurgeRejected(t *testing.T, s store.Proposals) {
	p := propose(t, s, proposal("acme/app", "alice", 1))
	keep := propose(t, s, proposal("acme/app", "bob", 2))
	decide(t, s, store.Decision{ID: p.ID, State: store.ProposalRejected, Reviewer: "carol", Reason: "holds a key", Time: at(3)})
	got, err := s.PurgeProposal(context.Background(), p.ID, "carol", at(4))
	if err != nil {
		t.Fatalf("PurgeProposal: %v", err)
	}
	if got.Entries != nil || got.Deletes != nil || got.PurgedBy != "carol" || !got.Purged.Equal(at(4)) || len(got.Base) != 3 {
		t.Errorf("PurgeProposal = %+v, want no content, purged by carol at 4, the base kept", got)
	}
	if got.State != store.ProposalRejected || got.Reason != "holds a key" {
		t.Errorf("PurgeProposal = %+v, want the decision kept", got)
	}
	other, err := s.Proposal(context.Background(), keep.ID)
	if err != nil || other.Entries["a.md"] != keep.Entries["a.md"] {
		t.Errorf("another proposal after a purge = %+v, %v, want its content kept", other, err)
	}
}

func testPurgeOnlyRejected(t *testing.T, s store.Proposals) {
	pending := propose(t, s, proposal("acme/app", "alice", 1))
	approved := propose(t, s, proposal("acme/app", "alice", 2))
	decide(t, s, store.Decision{ID: approved.ID, State: store.ProposalApproved, Reviewer: "carol", Time: at(3), Version: 4})
	for _, id := range []int64{pending.ID, approved.ID} {
		got, err := s.PurgeProposal(context.Background(), id, "carol", at(5))
		if !errors.Is(err, store.ErrProposalDecided) {
			t.Errorf("PurgeProposal(%d) error = %v, want ErrProposalDecided", id, err)
		}
		if got.Entries == nil || got.PurgedBy != "" {
			t.Errorf("PurgeProposal(%d) refused = %+v, want the content kept", id, got)
		}
	}
}
