package memsync

import (
	"github.com/teammemd/teammemd/server/api"
)

// The states of a ReviewNote.
const (
	ReviewPending  = api.ProposalPending
	ReviewRejected = api.ProposalRejected
)

// ReviewNote is a local change of one key that a server holding its repo
// under review took as a proposal rather than stored (PROTOCOL.md section
// 14). The local file keeps the change: it is not sent again while it
// holds the content proposed, the unchanged server copy does not
// overwrite it, and it is no conflict. The note goes once the server's
// copy of the key changes, to the content proposed when approved.
type ReviewNote struct {
	// Key is set in a Report; in State the map's key names it.
	Key      string `json:"key,omitempty"`
	Proposal int64  `json:"proposal"`
	// Checksum is the entry checksum of the content proposed, empty for
	// a deletion; Base the server's when it was proposed, empty for none.
	Checksum string `json:"checksum,omitempty"`
	Base     string `json:"base,omitempty"`
	// State is ReviewPending or ReviewRejected; a rejection carries who
	// rejected it and why.
	State    string `json:"state"`
	Reviewer string `json:"reviewer,omitempty"`
	Reason   string `json:"reason,omitempty"`
}
