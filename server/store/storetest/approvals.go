package storetest

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/teammemd/teammemd/server/store"
)

// Approver is a backend whose writes land approvals (Write.Decide).
type Approver interface {
	store.Store
	store.Proposals
}

// RunApprovals runs the conformance tests of writes that land an
// approval, each on a fresh backend from open.
func RunApprovals(t *testing.T, open func(t *testing.T) Approver) {
	runEach(t, open, []subtest[Approver]{
		{"LandsWithItsDecision", testApprovalLands},
		{"DecidedLandsNothing", testDecidedLandsNothing},
		{"NoChangeDecidesNothing", testNoChangeDecidesNothing},
		{"RaceWithRejection", testApprovalRace},
	})
}

// approval is the write that lands p, approved by carol.
func approval(p store.Proposal, n int) store.Write {
	return store.Write{Repo: p.Repo, Entries: p.Entries, Subject: p.Subject, Time: at(n),
		Decide: &store.Decision{ID: p.ID, State: store.ProposalApproved, Reviewer: "carol", Time: at(n)}}
}

func testApprovalLands(t *testing.T, s Approver) {
	apply(t, s, store.Write{Repo: "acme/app", Entries: map[string]string{"other.md": "x"}, Subject: "bob"})
	p := propose(t, s, store.Proposal{Repo: "acme/app", Subject: "alice", Time: at(1), Entries: map[string]string{"a.md": "proposed"}})
	res := apply(t, s, approval(p, 2))
	got, err := s.Proposal(context.Background(), p.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.State != store.ProposalApproved || got.Reviewer != "carol" || got.Version != res.Version || res.Version != 2 {
		t.Errorf("after the approval's write (version %d): %+v, want approved by carol at version 2", res.Version, got)
	}
}

func testDecidedLandsNothing(t *testing.T, s Approver) {
	before := apply(t, s, store.Write{Repo: "acme/app", Entries: map[string]string{"other.md": "x"}, Subject: "bob"})
	p := propose(t, s, store.Proposal{Repo: "acme/app", Subject: "alice", Time: at(1), Entries: map[string]string{"a.md": "withdrawn"}})
	decide(t, s, store.Decision{ID: p.ID, State: store.ProposalRejected, Reviewer: "alice", Reason: "withdrawn", Time: at(2)})
	for _, w := range []store.Write{approval(p, 3), approval(store.Proposal{ID: p.ID + 100, Repo: p.Repo, Entries: p.Entries}, 3)} {
		_, err := s.Apply(context.Background(), w)
		if !errors.Is(err, store.ErrProposalDecided) && !errors.Is(err, store.ErrProposalNotFound) {
			t.Errorf("Apply of an approval of proposal %d, not pending: error %v, want ErrProposalDecided or ErrProposalNotFound", w.Decide.ID, err)
		}
	}
	snap, err := s.Snapshot(context.Background(), "acme/app", true)
	if err != nil {
		t.Fatal(err)
	}
	if _, landed := snap.Entries["a.md"]; landed || snap.Version != before.Version {
		t.Errorf("after refused approvals the repo is at version %d with %v, want version %d without a.md", snap.Version, snap.Entries, before.Version)
	}
	got, _ := s.Proposal(context.Background(), p.ID)
	if got.State != store.ProposalRejected || got.Reason != "withdrawn" {
		t.Errorf("the rejected proposal became %+v", got)
	}
}

func testNoChangeDecidesNothing(t *testing.T, s Approver) {
	apply(t, s, store.Write{Repo: "acme/app", Entries: map[string]string{"a.md": "same"}, Subject: "bob"})
	p := propose(t, s, store.Proposal{Repo: "acme/app", Subject: "alice", Time: at(1), Entries: map[string]string{"a.md": "same"}})
	res := apply(t, s, approval(p, 2))
	got, _ := s.Proposal(context.Background(), p.ID)
	if len(res.Changed) != 0 || got.State != store.ProposalPending {
		t.Errorf("an approval that changes nothing: changed %v, proposal %s; want nothing changed and the proposal left to DecideProposal", res.Changed, got.State)
	}
}

// testApprovalRace approves and rejects proposals at the same time, many
// times over: each proposal ends either approved with its content in the
// repo, or rejected without it, never rejected with its content landed.
func testApprovalRace(t *testing.T, s Approver) {
	ctx := context.Background()
	apply(t, s, store.Write{Repo: "acme/app", Entries: map[string]string{"other.md": "x"}, Subject: "bob"})
	for i := range 20 {
		key := "race-" + string(rune('a'+i)) + ".md"
		p := propose(t, s, store.Proposal{Repo: "acme/app", Subject: "alice", Time: at(i), Entries: map[string]string{key: "proposed"}})
		var wg sync.WaitGroup
		var applyErr error
		wg.Add(2)
		go func() {
			defer wg.Done()
			_, applyErr = s.Apply(ctx, approval(p, i))
		}()
		go func() {
			defer wg.Done()
			_, _ = s.DecideProposal(ctx, store.Decision{ID: p.ID, State: store.ProposalRejected, Reviewer: "alice", Reason: "withdrawn", Time: at(i)})
		}()
		wg.Wait()
		if applyErr != nil && !errors.Is(applyErr, store.ErrProposalDecided) {
			t.Fatalf("approval %d: %v", i, applyErr)
		}
		got, _ := s.Proposal(ctx, p.ID)
		snap, err := s.Snapshot(ctx, "acme/app", true)
		if err != nil {
			t.Fatal(err)
		}
		_, landed := snap.Entries[key]
		if landed != (got.State == store.ProposalApproved) || (applyErr == nil) != landed {
			t.Errorf("proposal %d ended %s with its content landed %v (approval error %v)", p.ID, got.State, landed, applyErr)
		}
	}
}
