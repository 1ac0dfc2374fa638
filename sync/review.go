package memsync

import (
	"context"
	"slices"

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

// acceptProposal records a batch the server took as a proposal: the keys
// the proposal holds are under review, and the rest, which the server
// already held as sent, are accepted as stored.
func (s *session) acceptProposal(b batch, resp api.PutResponse) {
	proposed := func(k string) bool { return slices.Contains(resp.Review.Keys, k) }
	note := func(k, sum string) {
		if s.st.Review == nil {
			s.st.Review = map[string]ReviewNote{}
		}
		s.st.Review[k] = ReviewNote{Proposal: resp.Review.Proposal, Checksum: sum, Base: s.st.ServerChecksums[k], State: ReviewPending}
		s.rep.Proposed = append(s.rep.Proposed, k)
	}
	var stored batch
	for _, u := range b.Entries {
		if proposed(u.Key) {
			note(u.Key, u.Sum)
		} else {
			stored.Entries = append(stored.Entries, u)
		}
	}
	for _, k := range b.Deletes {
		if proposed(k) {
			note(k, "")
		} else {
			stored.Deletes = append(stored.Deletes, k)
		}
	}
	s.accept(stored, resp)
}

// underReview reports whether the local file of k, with content hash, is
// the change a ReviewNote holds (a deletion when hash is empty), and drops
// a note the file no longer matches: an edit is proposed again.
func (s *session) underReview(k, hash string) bool {
	n, ok := s.st.Review[k]
	if ok && n.Checksum == hash {
		return true
	}
	delete(s.st.Review, k)
	return false
}

// reopenReviews drops, for each pending proposal one of whose files
// changed since it was made, the notes of all its files: the push
// proposes them together again, and the server lets the new proposal
// supersede the old one, so a reviewer sees the author's latest version
// only.
func (s *session) reopenReviews(local map[string]IndexEntry) {
	stale := map[int64]bool{}
	for k, n := range s.st.Review {
		if n.State == ReviewPending && local[k].Hash != n.Checksum {
			stale[n.Proposal] = true
		}
	}
	for k, n := range s.st.Review {
		if stale[n.Proposal] {
			delete(s.st.Review, k)
		}
	}
}

// settleReviews drops the notes of the keys whose server copy changed
// since they were proposed: approved, or overtaken by another change,
// which the pull has brought in as for any key changed on both sides.
func (s *session) settleReviews() {
	for k, n := range s.st.Review {
		if s.st.ServerChecksums[k] != n.Base {
			delete(s.st.Review, k)
		}
	}
}

// checkReviews asks the server, when a change of this repo waits for
// review, what became of it, and records the rejections with their
// reasons. An approval needs no record: the pull brings the content.
// Asking is best effort: a failure leaves the notes as they were.
func (s *session) checkReviews(ctx context.Context) {
	first := int64(0)
	for _, n := range s.st.Review {
		if n.State == ReviewPending && (first == 0 || n.Proposal < first) {
			first = n.Proposal
		}
	}
	if first == 0 || s.client == nil {
		return
	}
	list, err := s.client.Proposals(ctx, s.cfg.Repo, ProposalQuery{State: "all", After: first - 1})
	if err != nil {
		s.log.Debug("cannot check proposals", "err", err)
		return
	}
	for k, n := range s.st.Review {
		i := slices.IndexFunc(list, func(p api.Proposal) bool { return p.ID == n.Proposal })
		if n.State == ReviewPending && i >= 0 && list[i].State == api.ProposalRejected {
			n.State, n.Reviewer, n.Reason = ReviewRejected, list[i].Reviewer, list[i].Reason
			s.st.Review[k] = n
		}
	}
}

// reviewNotes lists the state's notes, by key.
func reviewNotes(st *State) []ReviewNote {
	var out []ReviewNote
	for k, n := range st.Review {
		n.Key = k
		out = append(out, n)
	}
	slices.SortFunc(out, func(a, b ReviewNote) int {
		switch {
		case a.Key < b.Key:
			return -1
		case a.Key > b.Key:
			return 1
		}
		return 0
	})
	return out
}
