package memsync

import (
	"context"

	"github.com/teammemd/teammemd/server/api"
)

// Proposals lists the repo's proposals q selects (see Client.Proposals).
func (e *Engine) Proposals(ctx context.Context, q ProposalQuery) ([]api.Proposal, error) {
	c, err := e.teamClient()
	if err != nil {
		return nil, err
	}
	return c.Proposals(ctx, e.cfg.Repo, q)
}

// Proposal returns proposal id with its content and the repo's current
// content of its keys.
func (e *Engine) Proposal(ctx context.Context, id int64) (api.ProposalResponse, error) {
	c, err := e.teamClient()
	if err != nil {
		return api.ProposalResponse{}, err
	}
	return c.Proposal(ctx, id)
}

// Approve approves proposal id, edited when req is not empty.
func (e *Engine) Approve(ctx context.Context, id int64, req api.ApproveRequest) (api.ProposalResponse, error) {
	c, err := e.teamClient()
	if err != nil {
		return api.ProposalResponse{}, err
	}
	return c.Approve(ctx, id, req)
}

// Reject rejects proposal id for reason.
func (e *Engine) Reject(ctx context.Context, id int64, reason string) (api.ProposalResponse, error) {
	c, err := e.teamClient()
	if err != nil {
		return api.ProposalResponse{}, err
	}
	return c.Reject(ctx, id, reason)
}

// PurgeProposal drops the content of rejected proposal id.
func (e *Engine) PurgeProposal(ctx context.Context, id int64) (api.ProposalResponse, error) {
	c, err := e.teamClient()
	if err != nil {
		return api.ProposalResponse{}, err
	}
	return c.PurgeProposal(ctx, id)
}
