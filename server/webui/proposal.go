package webui

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/store"
)

// proposalKey is one key of a proposal: what is proposed, what the server
// holds now, and the diff between them.
type proposalKey struct {
	Key string
	// Delete is set when the proposal deletes the key.
	Delete bool
	// Kept is set while the proposal's content is kept.
	Kept     bool
	Proposed string
	Rendered renderedNote
	// HasCurrent is set when the server holds the key live now.
	HasCurrent bool
	Current    string
	Lines      []diffLine
	Added      int
	Removed    int
	// Conflict is set when the key changed on the server since the
	// proposal was made.
	Conflict bool
	// Edit and EditDelete fill the edit-then-approve form.
	Edit       string
	EditDelete bool
}

// proposalPage is a proposal as a reviewer decides on it, or as its
// author follows it.
type proposalPage struct {
	P store.Proposal
	// Reviewer is set when the person holds a review grant on the repo;
	// Own when the proposal is theirs.
	Reviewer, Own bool
	Checksum      string
	Conflicts     []string
	Keys          []proposalKey
	// Error says why the form sent was refused; Reason is the rejection
	// reason typed.
	Error, Reason string
	// The proposal's state, and whether its content was purged.
	Pending, Rejected, Approved, Purged bool
}

// visibleProposal reads proposal id for s, who must be a reviewer of its
// repo or its author: to anyone else, as for an id no proposal has, the
// page is not there.
func (u *UI) visibleProposal(ctx context.Context, s *session, id int64) (ProposalView, error) {
	v, err := u.backend.ShowProposal(ctx, s.principal(), id)
	var apiErr *api.Error
	if errors.As(err, &apiErr) && (apiErr.Status == http.StatusNotFound || apiErr.Status == http.StatusForbidden) {
		return ProposalView{}, notFound()
	}
	return v, err
}

func (u *UI) serveProposal(w http.ResponseWriter, r *http.Request, s *session) {
	id, err := idParam(r)
	if err != nil {
		u.fail(w, r, s, err)
		return
	}
	u.showProposal(w, r, s, id, http.StatusOK, proposalForm{})
}

// proposalForm is what a refused form sent, shown again so that nothing
// typed is lost.
type proposalForm struct {
	err    string
	reason string
	edits  map[string]string
	drops  []string
}

// showProposal renders proposal id as it is now, with form's refusal.
func (u *UI) showProposal(w http.ResponseWriter, r *http.Request, s *session, id int64, status int, form proposalForm) {
	v, err := u.visibleProposal(r.Context(), s, id)
	if err != nil {
		u.fail(w, r, s, err)
		return
	}
	page, err := u.proposalPage(s, v, form)
	if err != nil {
		u.fail(w, r, s, err)
		return
	}
	u.render(w, r, status, "proposal", u.viewFor(s, fmt.Sprintf("Proposal %d · %s", id, v.Proposal.Repo), page))
}

// proposalPage lays out v for s.
func (u *UI) proposalPage(s *session, v ProposalView, form proposalForm) (proposalPage, error) {
	p := v.Proposal
	page := proposalPage{P: p, Reviewer: s.principal().Allows(p.Repo, store.LevelReview), Own: p.Subject == s.Subject,
		Checksum: v.Checksum, Conflicts: v.Conflicts, Error: form.err, Reason: form.reason,
		Pending: p.State == store.ProposalPending, Rejected: p.State == store.ProposalRejected,
		Approved: p.State == store.ProposalApproved, Purged: !p.Purged.IsZero()}
	for _, k := range p.Keys() {
		pk := proposalKey{Key: k, Delete: slices.Contains(p.Deletes, k), Proposed: p.Entries[k],
			Conflict: slices.Contains(v.Conflicts, k)}
		pk.Current, pk.HasCurrent = v.Current[k]
		if _, ok := p.Entries[k]; !ok && !pk.Delete {
			// Purged: nothing of the content is left to show.
			page.Keys = append(page.Keys, pk)
			continue
		}
		pk.Kept = true
		var err error
		if pk.Rendered, err = renderNote(pk.Proposed); err != nil {
			return page, err
		}
		pk.Lines = diffLines(pk.Current, pk.Proposed)
		pk.Added, pk.Removed = countDiff(pk.Lines)
		pk.Edit, pk.EditDelete = pk.Proposed, pk.Delete
		if edit, ok := form.edits[k]; ok {
			pk.Edit, pk.EditDelete = edit, slices.Contains(form.drops, k)
		}
		page.Keys = append(page.Keys, pk)
	}
	return page, nil
}

// countDiff counts the added and removed lines of a diff.
func countDiff(lines []diffLine) (added, removed int) {
	for _, l := range lines {
		switch l.Op {
		case opAdd:
			added++
		case opRemove:
			removed++
		}
	}
	return added, removed
}
