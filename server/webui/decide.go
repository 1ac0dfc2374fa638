package webui

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/store"
)

// Form fields of the edit-then-approve form: one textarea per key, and a
// box to delete it instead.
const (
	editField   = "content:"
	deleteField = "delete:"
)

// decision is a POST on a proposal: its id and the proposal as s may see
// it, when s may decide it as asked.
func (u *UI) decision(w http.ResponseWriter, r *http.Request, s *session, authorToo bool) (ProposalView, bool) {
	id, err := idParam(r)
	if err == nil {
		var v ProposalView
		if v, err = u.visibleProposal(r.Context(), s, id); err == nil {
			reviewer := s.principal().Allows(v.Proposal.Repo, store.LevelReview)
			if reviewer || authorToo && v.Proposal.Subject == s.Subject {
				return v, true
			}
			err = notFound()
		}
	}
	u.fail(w, r, s, err)
	return ProposalView{}, false
}

// serveApprove lands a proposal as it is.
func (u *UI) serveApprove(w http.ResponseWriter, r *http.Request, s *session) {
	v, ok := u.decision(w, r, s, false)
	if !ok {
		return
	}
	_, err := u.backend.Approve(r.Context(), s.principal(), v.Proposal.ID, api.ApproveRequest{})
	u.decided(w, r, s, v.Proposal, "approved", err, proposalForm{})
}

// serveApproveEdited lands the reviewer's edit of a proposal against the
// repo as the form saw it.
func (u *UI) serveApproveEdited(w http.ResponseWriter, r *http.Request, s *session) {
	v, ok := u.decision(w, r, s, false)
	if !ok {
		return
	}
	edit := api.ApproveRequest{IfMatch: r.PostFormValue("if_match"), Entries: map[string]string{}}
	form := proposalForm{edits: map[string]string{}}
	for _, k := range v.Proposal.Keys() {
		value := strings.ReplaceAll(r.PostFormValue(editField+k), "\r\n", "\n")
		form.edits[k] = value
		if r.PostFormValue(deleteField+k) == "1" {
			edit.Deletes = append(edit.Deletes, k)
			form.drops = append(form.drops, k)
			continue
		}
		edit.Entries[k] = value
	}
	_, err := u.backend.Approve(r.Context(), s.principal(), v.Proposal.ID, edit)
	u.decided(w, r, s, v.Proposal, "approved with edits", err, form)
}

// serveReject rejects a proposal with the reason the form gives; its
// author may withdraw it so.
func (u *UI) serveReject(w http.ResponseWriter, r *http.Request, s *session) {
	v, ok := u.decision(w, r, s, true)
	if !ok {
		return
	}
	reason := strings.TrimSpace(r.PostFormValue("reason"))
	form := proposalForm{reason: reason}
	if reason == "" || len(reason) > maxReasonBytes || api.Printable(reason) != reason {
		form.err = fmt.Sprintf("give a reason, of printable text up to %d bytes: the author sees it", maxReasonBytes)
		u.showProposal(w, r, s, v.Proposal.ID, http.StatusBadRequest, form)
		return
	}
	_, err := u.backend.Reject(r.Context(), s.principal(), v.Proposal.ID, reason)
	u.decided(w, r, s, v.Proposal, "rejected", err, form)
}

// servePurgeProposal drops the content of a rejected proposal for good.
func (u *UI) servePurgeProposal(w http.ResponseWriter, r *http.Request, s *session) {
	v, ok := u.decision(w, r, s, false)
	if !ok {
		return
	}
	if r.PostFormValue("confirm") != "1" {
		u.showProposal(w, r, s, v.Proposal.ID, http.StatusBadRequest,
			proposalForm{err: "tick the box that confirms the content is gone for good"})
		return
	}
	_, err := u.backend.PurgeProposal(r.Context(), s.principal(), v.Proposal.ID)
	u.decided(w, r, s, v.Proposal, "purged", err, proposalForm{})
}

// refusalText says why the server refused a decision, in the page's
// words where the protocol's would not tell a reviewer what to do.
func refusalText(e *api.Error) string {
	if e.Code == api.CodePrecondition {
		return "the repo changed since this page was shown, so nothing was written: the page below shows it as it is now; check the diff and your edit, then approve again"
	}
	return e.Message
}

// decided answers a decision on p: back to the proposal, which shows the
// outcome, or, when the server refused it, the proposal again with the
// refusal and the form as it was sent.
func (u *UI) decided(w http.ResponseWriter, r *http.Request, s *session, p store.Proposal, what string, err error, form proposalForm) {
	var apiErr *api.Error
	if errors.As(err, &apiErr) {
		form.err = refusalText(apiErr)
		if apiErr.Code == api.CodeSecretDetected {
			form.reason = "" // a reason that holds a secret is not sent back
		}
		u.showProposal(w, r, s, p.ID, apiErr.Status, form)
		return
	}
	if err != nil {
		u.fail(w, r, s, err)
		return
	}
	u.log.InfoContext(r.Context(), "web review", "subject", s.Subject, "repo", p.Repo, "proposal", p.ID, "decision", what)
	http.Redirect(w, r, proposalPath(p.ID), http.StatusSeeOther)
}
