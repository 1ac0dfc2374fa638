package memsync

import (
	"context"
	"slices"

	"github.com/teammemd/teammemd/server/api"
)

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
