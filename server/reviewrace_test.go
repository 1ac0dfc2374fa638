package server_test

import (
	"context"
	"net/http"
	"sync"
	"testing"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/servertest"
	"github.com/teammemd/teammemd/server/store"
	"github.com/teammemd/teammemd/server/store/sqlite"
)

// approvalHold is a secret scanner that finds nothing and holds the scan
// of value from its second time on (the first is the proposal's own PUT,
// the second its approval's) until release is closed, telling held when
// it starts to hold.
type approvalHold struct {
	value   string
	held    chan struct{}
	release chan struct{}
	mu      sync.Mutex
	seen    int
}

func newApprovalHold(value string) *approvalHold {
	return &approvalHold{value: value, held: make(chan struct{}), release: make(chan struct{})}
}

func (h *approvalHold) ScanEntries(ctx context.Context, entries map[string]string) (map[string][]string, error) {
	for _, v := range entries {
		if v != h.value {
			continue
		}
		h.mu.Lock()
		h.seen++
		hold := h.seen == 2
		h.mu.Unlock()
		if !hold {
			continue
		}
		close(h.held)
		select {
		case <-h.release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return nil, nil
}

func (*approvalHold) ScanKeys(context.Context, []string) (map[string][]string, error) {
	return nil, nil
}

// approveHeld starts carol's approval of id and returns its answer's
// channel once the approval is held in its scan.
func (s reviewed) approveHeld(t *testing.T, h *approvalHold, id int64) <-chan reply {
	t.Helper()
	answer := make(chan reply, 1)
	go func() { answer <- s.decision(t, s.carol, id, "approve", "") }()
	<-h.held
	return answer
}

// A proposal its author withdraws while a reviewer's approval of it is on
// its way never lands: the withdrawal stands, the approval is a 409
// proposal_decided, and the repo never holds the withdrawn content.
func TestReviewWithdrawnWhileApproved(t *testing.T) {
	h := newApprovalHold("withdrawn text")
	s := startReviewedWith(t, h)
	id := s.propose(t, s.alice, map[string]string{"wd.md": "withdrawn text"}).Review.Proposal
	approved := s.approveHeld(t, h, id)
	if r := s.decision(t, s.alice, id, "reject", `{"reason":"withdrawn"}`); r.status != http.StatusOK {
		t.Fatalf("the author withdrawing = %d %s, want 200", r.status, r.body)
	}
	close(h.release)
	r := <-approved
	if r.status != http.StatusConflict || r.errorCode() != api.CodeProposalDecided {
		t.Errorf("the approval after the withdrawal = %d %s, want 409 %s", r.status, r.body, api.CodeProposalDecided)
	}
	if got := s.entries(t); len(got) != 0 {
		t.Errorf("the repo after a withdrawn proposal's approval = %v, want nothing landed", got)
	}
	if got := s.show(t, s.carol, id).Proposal; got.State != api.ProposalRejected || got.Version != 0 {
		t.Errorf("the proposal = %s at version %d, want rejected, at no version", got.State, got.Version)
	}
}

// An approval during which another approval moved the repo lands, as the
// reviewer asked, when the other did not touch its keys; two approvals of
// one proposal land it once, and the second is a 409 proposal_decided.
func TestReviewApprovalsAtOnce(t *testing.T) {
	h := newApprovalHold("first")
	s := startReviewedWith(t, h)
	first := s.propose(t, s.alice, map[string]string{"first.md": "first"}).Review.Proposal
	second := s.propose(t, s.bob, map[string]string{"second.md": "second"}).Review.Proposal
	approved := s.approveHeld(t, h, first)
	if r := s.decision(t, s.carol, second, "approve", ""); r.status != http.StatusOK {
		t.Fatalf("approve the second = %d %s, want 200", r.status, r.body)
	}
	twice := s.decision(t, s.carol, first, "approve", "")
	close(h.release)
	if r := <-approved; r.status != http.StatusOK && twice.status != http.StatusOK {
		t.Fatalf("approvals of the first proposal = %d %s and %d %s, want one 200", r.status, r.body, twice.status, twice.body)
	} else if loser := map[bool]reply{true: twice, false: r}[r.status == http.StatusOK]; loser.status != http.StatusConflict || loser.errorCode() != api.CodeProposalDecided {
		t.Errorf("the other approval of the first proposal = %d %s, want 409 %s", loser.status, loser.body, api.CodeProposalDecided)
	}
	if got := s.entries(t); got["first.md"] != "first" || got["second.md"] != "second" {
		t.Errorf("the repo = %v, want both proposals landed", got)
	}
}

// movingStore moves the repo, with a write of its own, just before the
// first approval's write reaches the database, as another writer could
// between the approval's read of the repo and its write.
type movingStore struct {
	*sqlite.Store
	once sync.Once
}

func (m *movingStore) Apply(ctx context.Context, w store.Write) (store.Result, error) {
	if w.Decide != nil {
		var err error
		m.once.Do(func() {
			_, err = m.Store.Apply(ctx, store.Write{Repo: w.Repo, Entries: map[string]string{"moved.md": "in between"}, Subject: "bob"})
		})
		if err != nil {
			return store.Result{}, err
		}
	}
	return m.Store.Apply(ctx, w)
}

// An approval whose write finds the repo moved since it read it, by a
// write to other keys, reads the repo again and lands, rather than
// answering 412 to a reviewer who sent no If-Match.
func TestReviewApprovalAfterAMove(t *testing.T) {
	s := startReviewedWith(t, servertest.MarkerScanner(secretMarker),
		servertest.WithStoreWrap(func(st *sqlite.Store) store.Store { return &movingStore{Store: st} }))
	id := s.propose(t, s.alice, map[string]string{"deploy.md": "port 8080"}).Review.Proposal
	r := s.decision(t, s.carol, id, "approve", "")
	var out api.ProposalResponse
	decode(t, r, &out)
	if r.status != http.StatusOK || out.Proposal.State != api.ProposalApproved || out.Proposal.Version != 2 {
		t.Fatalf("approve = %d %s, want approved at version 2, after the write in between", r.status, r.body)
	}
	if got := s.entries(t); got["deploy.md"] != "port 8080" || got["moved.md"] != "in between" {
		t.Errorf("the repo = %v, want both writes", got)
	}
}
