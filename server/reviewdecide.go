package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/auth"
	"github.com/teammemd/teammemd/server/store"
)

// Approve lands proposal id through the same write as a PUT, chained on
// the repo's checksum, and records the approval in that write's own
// transaction, so a proposal rejected meanwhile never lands. With an
// empty edit the proposal lands as it is, by its author, and only while
// none of its keys changed on the server since it was made: else 409
// proposal_conflict naming them. With an edit (see api.ApproveRequest) the
// reviewer's version lands, by the reviewer, if the repo still has the
// checksum edit.IfMatch names (else 412). The secret scan runs on what
// lands. A reviewer never approves their own proposal.
func (s *Server) Approve(ctx context.Context, p auth.Principal, id int64, edit api.ApproveRequest) (ProposalView, error) {
	prop, err := s.pendingFor(ctx, p, id, "approve proposals")
	if err != nil {
		return ProposalView{}, err
	}
	if prop.Subject == p.Subject {
		return ProposalView{}, api.NewError(http.StatusForbidden, api.CodeACLDenied,
			"a reviewer cannot approve their own proposal: another reviewer must").With("reason", api.ReasonOwnProposal)
	}
	wr := store.Write{Repo: prop.Repo, Entries: prop.Entries, Deletes: prop.Deletes, Subject: prop.Subject, Time: s.now().UTC()}
	edited := len(edit.Entries)+len(edit.Deletes) > 0
	if edited {
		if err := s.checkEdit(prop, edit); err != nil {
			return ProposalView{}, err
		}
		wr.Entries, wr.Deletes = editedWrite(prop, edit)
		wr.Subject, wr.IfMatch = p.Subject, edit.IfMatch
	}
	if err := s.scan(ctx, api.PutRequest{Entries: wr.Entries, SoftDeleteKeys: wr.Deletes}); err != nil {
		return ProposalView{}, err
	}
	d := store.Decision{ID: id, State: store.ProposalApproved, Reviewer: p.Subject, Time: wr.Time, Edited: edited}
	wr.Decide = &d
	res, err := s.landApproval(ctx, prop, wr, edited)
	if err != nil {
		return ProposalView{}, s.approveError(ctx, id, err)
	}
	if len(res.Changed) == 0 { // nothing landed, so nothing recorded the approval
		return s.decide(ctx, d, res.Checksum)
	}
	if prop, err = s.readProposal(ctx, id); err != nil {
		return ProposalView{}, err
	}
	s.waker.Publish(store.ReviewWakeKey(prop.Repo))
	return ProposalView{Proposal: prop, Checksum: res.Checksum}, nil
}

// approvalTries bounds how often an unedited approval chains again on a
// repo that other writes keep moving.
const approvalTries = 3

// landApproval writes wr, the approval of prop. An edited approval
// carries the reviewer's If-Match; an unedited one chains on the
// checksum the server reads itself, after checking that none of the
// proposal's keys changed, and does so again when another write moved
// the repo in between.
func (s *Server) landApproval(ctx context.Context, prop store.Proposal, wr store.Write, edited bool) (store.Result, error) {
	if edited {
		res, _, err := s.apply(ctx, wr, "")
		return res, err
	}
	for try := 1; ; try++ {
		snap, _, err := s.currentHashes(ctx, prop.Repo)
		if err != nil {
			return store.Result{}, err
		}
		if keys := view(prop, snap).Conflicts; len(keys) > 0 {
			return store.Result{}, conflictError(prop, keys)
		}
		wr.IfMatch = snap.Checksum
		res, _, err := s.apply(ctx, wr, "")
		if !isPrecondition(err) || try == approvalTries {
			return res, err
		}
	}
}

// approveError is the answer to an approval whose write failed with err:
// a proposal decided meanwhile is a 409 proposal_decided, whatever made
// the write fail (another approval of it moves the repo and changes its
// keys).
func (s *Server) approveError(ctx context.Context, id int64, err error) error {
	var apiErr *api.Error
	conflict := errors.As(err, &apiErr) && apiErr.Code == api.CodeProposalConflict
	if !conflict && !isPrecondition(err) && !errors.Is(err, store.ErrProposalDecided) {
		return err
	}
	prop, rerr := s.readProposal(ctx, id)
	switch {
	case rerr != nil:
		return rerr
	case prop.State != store.ProposalPending:
		return decidedError(prop)
	case errors.Is(err, store.ErrProposalDecided):
		return fmt.Errorf("approve proposal %d: %w", id, err) // decided, then pending again: cannot be
	}
	return err
}

// isPrecondition reports whether err is the 412 of a write whose If-Match
// the repo no longer has.
func isPrecondition(err error) bool {
	var apiErr *api.Error
	return errors.As(err, &apiErr) && apiErr.Code == api.CodePrecondition
}

// conflictError is the 409 for a proposal whose keys changed since it was
// made.
func conflictError(prop store.Proposal, keys []string) error {
	return api.NewError(http.StatusConflict, api.CodeProposalConflict,
		fmt.Sprintf("proposal %d was made against an older version of %s, changed on the server since: approving it would undo that change. Reject it, or approve an edited version made against the repo as it is now",
			prop.ID, strings.Join(keys, ", "))).With("keys", keys)
}

// Reject rejects proposal id with reason, which its author sees. A
// reviewer of its repo rejects it; its author may withdraw it so.
func (s *Server) Reject(ctx context.Context, p auth.Principal, id int64, reason string) (ProposalView, error) {
	if strings.TrimSpace(reason) == "" {
		return ProposalView{}, api.NewError(http.StatusBadRequest, api.CodeInvalidRequest,
			"a rejection needs a reason: its author sees it")
	}
	prop, err := s.readProposal(ctx, id)
	if err != nil {
		return ProposalView{}, err
	}
	if prop.Subject != p.Subject || !p.Allows(prop.Repo, store.LevelWrite) {
		if _, err := s.pendingFor(ctx, p, id, "reject proposals"); err != nil {
			return ProposalView{}, err
		}
	}
	if err := s.checkReason(ctx, reason); err != nil {
		return ProposalView{}, err
	}
	d := store.Decision{ID: id, State: store.ProposalRejected, Reviewer: p.Subject, Reason: reason, Time: s.now().UTC()}
	return s.decide(ctx, d, "")
}

// PurgeProposal drops the content of rejected proposal id for good; a
// reviewer of its repo may.
func (s *Server) PurgeProposal(ctx context.Context, p auth.Principal, id int64) (ProposalView, error) {
	prop, err := s.readProposal(ctx, id)
	if err != nil {
		return ProposalView{}, err
	}
	if !p.Allows(prop.Repo, store.LevelReview) {
		return ProposalView{}, reviewDenied(p, prop.Repo, "purge proposals")
	}
	prop, err = s.proposals.PurgeProposal(ctx, id, p.Subject, s.now().UTC())
	if errors.Is(err, store.ErrProposalDecided) {
		return ProposalView{}, api.NewError(http.StatusConflict, api.CodeProposalDecided,
			fmt.Sprintf("proposal %d is %s: only a rejected proposal's content is purged", id, prop.State)).With("state", string(prop.State))
	}
	if err != nil {
		return ProposalView{}, fmt.Errorf("purge proposal %d: %w", id, err)
	}
	return ProposalView{Proposal: prop}, nil
}

// pendingFor reads proposal id for p, who must hold a review grant on its
// repo to do what; it must be pending.
func (s *Server) pendingFor(ctx context.Context, p auth.Principal, id int64, what string) (store.Proposal, error) {
	prop, err := s.readProposal(ctx, id)
	if err != nil {
		return prop, err
	}
	if !p.Allows(prop.Repo, store.LevelReview) {
		return prop, reviewDenied(p, prop.Repo, what)
	}
	if prop.State != store.ProposalPending {
		return prop, decidedError(prop)
	}
	return prop, nil
}

// decide records d and wakes the waits on the repo's proposals. A
// proposal another reviewer decided meanwhile is a 409.
func (s *Server) decide(ctx context.Context, d store.Decision, checksum string) (ProposalView, error) {
	prop, err := s.proposals.DecideProposal(ctx, d)
	if errors.Is(err, store.ErrProposalDecided) {
		return ProposalView{}, decidedError(prop)
	}
	if err != nil {
		return ProposalView{}, fmt.Errorf("decide proposal %d: %w", d.ID, err)
	}
	s.waker.Publish(store.ReviewWakeKey(prop.Repo))
	return ProposalView{Proposal: prop, Checksum: checksum}, nil
}

// proposeWrite holds a checked write to a repo under review as a
// proposal, and answers as the repo stands: it is unchanged until a
// reviewer approves.
func (s *Server) proposeWrite(ctx context.Context, p auth.Principal, repo, ifMatch string, req api.PutRequest) (api.PutResponse, error) {
	prop, snap, err := s.Propose(ctx, p, repo, ifMatch, req)
	if err != nil {
		return api.PutResponse{}, err
	}
	resp := api.PutResponse{
		OrganizationID: s.org, Repo: repo, Version: snap.Version,
		LastModified: lastModified(store.Result{LastModified: snap.LastModified}, s.now().UTC()), Checksum: snap.Checksum,
	}
	if prop.ID != 0 {
		resp.Review = &api.ReviewNotice{Proposal: prop.ID, State: api.ProposalPending, Keys: prop.Keys()}
	}
	return resp, nil
}
