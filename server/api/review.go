package api

import "time"

// Routes and headers of review (extension).
const (
	// ProposalsPath lists a repo's proposals; ProposalsPath/<id> is one
	// proposal, and ProposalsPath/<id>/approve, /reject and /purge decide
	// or purge it.
	ProposalsPath = Path + "/proposals"
	// ProposalHeader is set on a PUT answer when the write was held for
	// review instead of stored: the id of the proposal made.
	ProposalHeader = "Teammemd-Proposal"
	// ParamState selects proposals by state: pending (the default),
	// approved, rejected or all.
	ParamState = "state"
	// ParamAfter, with wait, holds the list until a proposal with a larger
	// id arrives.
	ParamAfter = "after"
)

// Error codes of review (extension).
const (
	// CodeProposalConflict: a key of the proposal changed on the server
	// since the proposal was made; details.keys names them.
	CodeProposalConflict = "proposal_conflict"
	// CodeProposalDecided: the proposal is no longer pending, or for a
	// purge, not rejected.
	CodeProposalDecided = "proposal_decided"
	// CodeProposalNotFound: no proposal has this id.
	CodeProposalNotFound = "proposal_not_found"
)

// Proposal states on the wire.
const (
	ProposalPending  = "pending"
	ProposalApproved = "approved"
	ProposalRejected = "rejected"
)

// ReviewNotice is the review field of a PUT answer whose write was held
// for review (extension): the proposal made and the keys it holds. The
// rest of the answer describes the repo as it is, unchanged.
type ReviewNotice struct {
	Proposal int64    `json:"proposal"`
	State    string   `json:"state"`
	Keys     []string `json:"keys"`
}

// Proposal is one proposal as the review routes show it. Entries and
// Deletes are absent from a list, and once the content was purged.
type Proposal struct {
	ID      int64     `json:"id"`
	Repo    string    `json:"repo"`
	Subject string    `json:"subject"`
	Time    time.Time `json:"time"`
	State   string    `json:"state"`
	Keys    []string  `json:"keys"`
	// Base maps each key to the entry checksum the repo held for it when
	// the proposal was made, "" when it held none.
	Base     map[string]string `json:"base"`
	Entries  map[string]string `json:"entries,omitempty"`
	Deletes  []string          `json:"soft_delete_keys,omitempty"`
	Reviewer string            `json:"reviewer,omitempty"`
	Reason   string            `json:"reason,omitempty"`
	Decided  *time.Time        `json:"decided,omitempty"`
	// Version is the repo version an approved proposal landed at.
	Version  int64      `json:"version,omitempty"`
	Edited   bool       `json:"edited,omitempty"`
	PurgedBy string     `json:"purgedBy,omitempty"`
	Purged   *time.Time `json:"purged,omitempty"`
	// Conflicts, on a pending proposal, are the keys whose entry on the
	// server is no longer the one the proposal was made against.
	Conflicts []string `json:"conflicts,omitempty"`
}

// ProposalResponse is the body of GET ProposalsPath/<id> and of a
// decision: the proposal, and the repo as it is now.
type ProposalResponse struct {
	Proposal Proposal `json:"proposal"`
	// Checksum is the repo's checksum now: the If-Match of an edited
	// approval made against what Current shows.
	Checksum string `json:"checksum"`
	// Current maps each key of the proposal the repo holds live now to
	// its value, so a reviewer sees what the proposal replaces.
	Current map[string]string `json:"current"`
}

// ProposalsResponse is the body of GET ProposalsPath?repo=<slug>.
type ProposalsResponse struct {
	Repo      string     `json:"repo"`
	Proposals []Proposal `json:"proposals"`
}

// ApproveRequest is the body of POST ProposalsPath/<id>/approve; an empty
// body approves the proposal as it is. With Entries or Deletes the
// reviewer approves an edited version: they replace the proposal's content
// for the keys they name (which must be keys of the proposal), and IfMatch,
// required then, is the repo checksum the edit was made against.
type ApproveRequest struct {
	IfMatch string            `json:"if_match,omitempty"`
	Entries map[string]string `json:"entries,omitempty"`
	Deletes []string          `json:"soft_delete_keys,omitempty"`
}

// RejectRequest is the body of POST ProposalsPath/<id>/reject.
type RejectRequest struct {
	Reason string `json:"reason"`
}
