package webui

import (
	"context"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/auth"
	"github.com/teammemd/teammemd/server/store"
)

// Reviews is the server's review lane: the view lists, shows and decides
// proposals only through it, so the grant checks, the rule that nobody
// approves their own proposal, the secret scan and the checksum chain of
// an edited approval are the API's own. Refusals are *api.Error values.
type Reviews interface {
	// ReviewRequired reports whether writes to repo are held for review.
	ReviewRequired(repo string) bool
	// Proposals lists the proposals q selects, without content: every one
	// to a reviewer of q.Repo, only their own to anyone else who may read
	// it.
	Proposals(ctx context.Context, p auth.Principal, q store.ProposalQuery) ([]store.Proposal, error)
	// ShowProposal returns proposal id with its content and the current
	// content of its keys, to a reviewer of its repo or to its author.
	ShowProposal(ctx context.Context, p auth.Principal, id int64) (ProposalView, error)
	// Approve lands proposal id as it is, or with edit applied against
	// the repo checksum edit.IfMatch names.
	Approve(ctx context.Context, p auth.Principal, id int64, edit api.ApproveRequest) (ProposalView, error)
	// Reject rejects proposal id with reason, which its author sees.
	Reject(ctx context.Context, p auth.Principal, id int64, reason string) (ProposalView, error)
	// PurgeProposal drops the content of rejected proposal id for good.
	PurgeProposal(ctx context.Context, p auth.Principal, id int64) (ProposalView, error)
}

// ProposalView is a proposal with the repo as it is now: what a reviewer
// decides on.
type ProposalView struct {
	Proposal store.Proposal
	// Checksum is the repo's checksum now.
	Checksum string
	// Conflicts, for a pending proposal, are its keys whose entry on the
	// server is no longer the one it was made against.
	Conflicts []string
	// Current maps each key of the proposal the repo holds live now to its
	// value; filled by ShowProposal only.
	Current map[string]string
}
