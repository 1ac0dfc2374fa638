package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"
)

// ErrProposalNotFound is returned for a proposal id no proposal has.
var ErrProposalNotFound = errors.New("proposal not found")

// ErrProposalDecided is returned by DecideProposal for a proposal that is
// no longer pending, and by PurgeProposal for one that is not rejected.
// Nothing was changed.
var ErrProposalDecided = errors.New("proposal is not pending")

// ProposalState is where a proposal is in its review.
type ProposalState string

// The states of a proposal: every proposal starts pending and is decided
// once, approved or rejected.
const (
	ProposalPending  ProposalState = "pending"
	ProposalApproved ProposalState = "approved"
	ProposalRejected ProposalState = "rejected"
)

// ReviewWakeKey is the key under which change waits on the proposals of
// repo are woken. A slug never holds '#', so it names no repo.
func ReviewWakeKey(repo string) string { return repo + "#review" }

// Proposal is a write to a repo under review, held until a reviewer
// decides it. Its content lands, when approved, through Apply like any
// write.
type Proposal struct {
	ID      int64
	Repo    string
	Subject string // the author
	Time    time.Time
	// Base maps every key the proposal writes or deletes to the entry
	// checksum the repo held for it when the proposal was made; "" for a
	// key the repo did not hold live.
	Base map[string]string
	// Entries and Deletes are the write proposed; both empty once the
	// content was purged or when the query asked for no content.
	Entries map[string]string
	Deletes []string
	State   ProposalState
	// Reviewer, Reason and Decided say who decided, why and when; empty
	// while pending.
	Reviewer, Reason string
	Decided          time.Time
	// Version is the repo version an approved proposal landed at, 0 when
	// approving it changed nothing.
	Version int64
	// Edited is set when the reviewer approved an edited version of it.
	Edited bool
	// PurgedBy and Purged say who dropped the content of a rejected
	// proposal, and when; empty while it is kept.
	PurgedBy string
	Purged   time.Time
}

// Keys returns the keys the proposal writes or deletes, sorted.
func (p Proposal) Keys() []string {
	return slices.Sorted(maps.Keys(p.Base))
}

// ProposalQuery selects proposals, oldest first.
type ProposalQuery struct {
	// Repo, State and Subject, when not empty, keep only the proposals of
	// that repo, in that state, by that author.
	Repo    string
	State   ProposalState
	Subject string
	// AfterID keeps only the proposals with a larger id.
	AfterID int64
	// NoContent leaves Entries and Deletes empty.
	NoContent bool
}

// Decision decides a pending proposal.
type Decision struct {
	ID               int64
	State            ProposalState // ProposalApproved or ProposalRejected
	Reviewer, Reason string
	Time             time.Time
	Version          int64
	Edited           bool
}

// Proposals keeps the writes held for review. Implementations are safe
// for concurrent use, also by many processes on one shared database.
type Proposals interface {
	// Propose records p as pending and returns it with its new ID. The
	// backends of a shared database tell every replica's waker of it under
	// ReviewWakeKey(p.Repo).
	Propose(ctx context.Context, p Proposal) (Proposal, error)
	// Proposal returns the proposal with this id, with its content, or
	// ErrProposalNotFound.
	Proposal(ctx context.Context, id int64) (Proposal, error)
	// ListProposals returns the proposals q selects, oldest first.
	ListProposals(ctx context.Context, q ProposalQuery) ([]Proposal, error)
	// DecideProposal records d on a pending proposal and returns it
	// decided; ErrProposalDecided when it is no longer pending (another
	// reviewer decided first), ErrProposalNotFound for an unknown id.
	DecideProposal(ctx context.Context, d Decision) (Proposal, error)
	// PurgeProposal drops the content of a rejected proposal for good and
	// records who did it and when; ErrProposalDecided for one that is not
	// rejected, ErrProposalNotFound for an unknown id.
	PurgeProposal(ctx context.Context, id int64, actor string, at time.Time) (Proposal, error)
}

// proposalContent is the stored form of a proposal's write.
type proposalContent struct {
	Entries map[string]string `json:"entries,omitempty"`
	Deletes []string          `json:"soft_delete_keys,omitempty"`
}

// EncodeProposal returns the stored forms of p's base and content, JSON
// objects every backend stores the same way.
func EncodeProposal(p Proposal) (base, content string, err error) {
	b, err := json.Marshal(p.Base)
	if err != nil {
		return "", "", fmt.Errorf("encode proposal base: %w", err)
	}
	c, err := json.Marshal(proposalContent{Entries: p.Entries, Deletes: p.Deletes})
	if err != nil {
		return "", "", fmt.Errorf("encode proposal content: %w", err)
	}
	return string(b), string(c), nil
}

// DecodeProposal fills p's base, and its content when content is not
// empty, from the stored forms EncodeProposal wrote.
func DecodeProposal(p *Proposal, base, content string) error {
	if err := json.Unmarshal([]byte(base), &p.Base); err != nil {
		return fmt.Errorf("decode base of proposal %d: %w", p.ID, err)
	}
	if content == "" {
		return nil
	}
	var c proposalContent
	if err := json.Unmarshal([]byte(content), &c); err != nil {
		return fmt.Errorf("decode content of proposal %d: %w", p.ID, err)
	}
	p.Entries, p.Deletes = c.Entries, c.Deletes
	return nil
}

// ValidDecision checks d before a backend records it.
func ValidDecision(d Decision) error {
	if d.State != ProposalApproved && d.State != ProposalRejected {
		return fmt.Errorf("decide proposal %d: state %q is not approved or rejected", d.ID, d.State)
	}
	if d.Reviewer == "" {
		return fmt.Errorf("decide proposal %d: no reviewer", d.ID)
	}
	return nil
}
