package webui

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/store"
)

// Audit bounds: the page reads the history of the last auditWindow and
// shows the newest maxAuditEvents events.
const (
	auditWindow    = 30 * 24 * time.Hour
	maxAuditEvents = 500
	maxReasonBytes = 1000
)

// auditPage is the audit of one repo or every repo.
type auditPage struct {
	Repo   string
	Events []store.AuditEvent
	Max    int
}

// serveAudit shows who wrote, deleted, restored or purged what, from the
// same records "teammemd admin audit" reads.
func (u *UI) serveAudit(w http.ResponseWriter, r *http.Request, s *session) {
	repo := r.FormValue("repo")
	if repo != "" && api.ValidateSlug(repo) != nil {
		u.fail(w, r, s, notFound())
		return
	}
	events, err := store.Audit(r.Context(), u.store, repo, u.now().Add(-auditWindow))
	if errors.Is(err, store.ErrNotFound) {
		err = notFound()
	}
	if err != nil {
		u.fail(w, r, s, err)
		return
	}
	slices.Reverse(events)
	page := auditPage{Repo: repo, Events: events[:min(len(events), maxAuditEvents)], Max: maxAuditEvents}
	u.page(w, r, s, "audit", "Audit", page)
}

// purgeRow is a revision a purge may drop.
type purgeRow struct {
	store.Revision
	Live bool
}

// purgePage is the confirmation form of a purge.
type purgePage struct {
	Repo, Key, Error string
	Revisions        []purgeRow
}

func (u *UI) servePurgeForm(w http.ResponseWriter, r *http.Request, s *session) {
	u.showPurge(w, r, s, http.StatusOK, "")
}

func (u *UI) showPurge(w http.ResponseWriter, r *http.Request, s *session, status int, msg string) {
	repo, err := u.repoParam(r, s, store.LevelRead)
	if err != nil {
		u.fail(w, r, s, err)
		return
	}
	key := r.FormValue("key")
	revs, err := store.ListHistory(r.Context(), u.store, store.HistoryQuery{Repo: repo, Key: key, NoContent: true})
	if errors.Is(err, store.ErrNotFound) || err == nil && len(revs) == 0 {
		err = notFound()
	}
	if err != nil {
		u.fail(w, r, s, err)
		return
	}
	page := purgePage{Repo: repo, Key: key, Error: msg}
	for i, rev := range revs {
		if rev.Size != nil {
			page.Revisions = append(page.Revisions, purgeRow{Revision: rev, Live: i == 0})
		}
	}
	u.render(w, r, status, "purge", u.viewFor(s, "Purge "+key, page))
}

// servePurge drops the content of the revisions the confirmed form names,
// as "teammemd admin purge" does, recording the admin and the reason.
func (u *UI) servePurge(w http.ResponseWriter, r *http.Request, s *session) {
	repo, err := u.repoParam(r, s, store.LevelRead)
	if err != nil {
		u.fail(w, r, s, err)
		return
	}
	p, msg := u.purgeRequest(r, repo, s.Subject)
	if msg != "" {
		u.showPurge(w, r, s, http.StatusBadRequest, msg)
		return
	}
	if err := u.backend.CheckReason(r.Context(), p.Reason); err != nil {
		u.fail(w, r, s, err)
		return
	}
	res, err := u.store.Purge(r.Context(), p)
	switch {
	case errors.Is(err, store.ErrLiveRevision):
		u.showPurge(w, r, s, http.StatusConflict, "one of these is the live revision: tick the box that says you mean to purge it, which deletes the note")
		return
	case errors.Is(err, store.ErrRevisionNotFound), errors.Is(err, store.ErrNotFound):
		u.showPurge(w, r, s, http.StatusNotFound, "a version named is not a revision of this note; nothing was purged")
		return
	case err != nil:
		u.fail(w, r, s, fmt.Errorf("purge %s in %s: %w", p.Key, repo, err))
		return
	}
	u.log.InfoContext(r.Context(), "web purge", "subject", s.Subject, "repo", repo, "key", p.Key,
		"versions", res.Record.Versions, "residue", res.Residue)
	http.Redirect(w, r, Prefix+"/audit?repo="+url.QueryEscape(repo), http.StatusSeeOther)
}

// purgeRequest reads the confirmed purge form; msg says what is wrong
// with it.
func (u *UI) purgeRequest(r *http.Request, repo, actor string) (store.Purge, string) {
	reason := strings.TrimSpace(r.PostFormValue("reason"))
	p := store.Purge{Repo: repo, Key: r.PostFormValue("key"), IncludeLive: r.PostFormValue("include_live") == "1",
		Actor: actor, Reason: reason, Time: u.now().UTC()}
	for _, raw := range r.PostForm["version"] {
		var v int64
		if _, err := fmt.Sscan(raw, &v); err != nil || v < 1 {
			return p, "a version must be a whole number from 1"
		}
		p.Versions = append(p.Versions, v)
	}
	switch {
	case r.PostFormValue("confirm") != "1":
		return p, "tick the box that confirms the content is gone for good"
	case len(p.Versions) == 0:
		return p, "pick the revisions to purge"
	case reason == "" || len(reason) > maxReasonBytes || api.Printable(reason) != reason:
		return p, fmt.Sprintf("give a reason for the audit, of printable text up to %d bytes", maxReasonBytes)
	}
	return p, ""
}
