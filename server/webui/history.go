package webui

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"github.com/teammemd/teammemd/server/store"
)

// revisionRow is one revision in a note's history: who wrote it, when,
// how big, and the versions to compare it with.
type revisionRow struct {
	store.Revision
	// Pruned is set for a write whose content the server no longer keeps.
	Pruned bool
	// Previous is the version before it with content, 0 when none on the
	// page.
	Previous int64
	// Live is set for the revision the note holds now.
	Live bool
}

// historyPage is a page of a note's history.
type historyPage struct {
	Repo, Key string
	Revisions []revisionRow
	Next      int64
	CanWrite  bool
}

func (u *UI) serveHistory(w http.ResponseWriter, r *http.Request, s *session) {
	repo, err := u.repoParam(r, s, store.LevelRead)
	if err != nil {
		u.fail(w, r, s, err)
		return
	}
	key := r.FormValue("key")
	if key == "" {
		u.fail(w, r, s, notFound())
		return
	}
	before, err := versionParam(r, "before", true)
	if err != nil {
		u.fail(w, r, s, err)
		return
	}
	revs, next, err := u.backend.HistoryPage(r.Context(), repo, key, before)
	if errors.Is(err, store.ErrNotFound) || err == nil && len(revs) == 0 {
		err = notFound()
	}
	if err != nil {
		u.fail(w, r, s, err)
		return
	}
	page := historyPage{Repo: repo, Key: key, Next: next, CanWrite: s.principal().Allows(repo, store.LevelWrite)}
	page.Revisions = historyRows(revs, before == 0)
	u.page(w, r, s, "history", "History of "+key, page)
}

// historyRows marks each revision's predecessor with content and the live
// one: the newest, when the page starts at the newest and it is not a
// deletion.
func historyRows(revs []store.Revision, fromNewest bool) []revisionRow {
	rows := make([]revisionRow, len(revs))
	for i, rev := range revs {
		rows[i] = revisionRow{Revision: rev, Pruned: !rev.Deleted && rev.Content == nil}
		for _, older := range revs[i+1:] {
			if older.Content != nil {
				rows[i].Previous = older.Version
				break
			}
		}
	}
	if fromNewest && len(rows) > 0 && !rows[0].Deleted {
		rows[0].Live = true
	}
	return rows
}

// versionParam reads a version parameter; optional ones may be absent (0).
func versionParam(r *http.Request, name string, optional bool) (int64, error) {
	raw := r.FormValue(name)
	if raw == "" && optional {
		return 0, nil
	}
	v, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || v < 1 {
		return 0, &pageError{status: http.StatusBadRequest, msg: name + " must be a version number, as the history lists them"}
	}
	return v, nil
}

// revision reads one revision of key with its content; a version that is
// not one of key's, or whose content is gone, is not found.
func (u *UI) revision(ctx context.Context, repo, key string, version int64) (store.Revision, error) {
	var out store.Revision
	q := store.HistoryQuery{Repo: repo, Key: key, Before: version + 1, Limit: 1}
	err := u.store.History(ctx, q, func(rev store.Revision) error {
		if rev.Version == version {
			out = rev
		}
		return nil
	})
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return store.Revision{}, fmt.Errorf("read version %d of %s in %s: %w", version, key, repo, err)
	}
	if out.Content == nil {
		return store.Revision{}, &pageError{status: http.StatusNotFound,
			msg: fmt.Sprintf("version %d of this note is not in its history, or its content was pruned or purged", version)}
	}
	return out, nil
}

// diffPage compares two revisions of a note.
type diffPage struct {
	Repo, Key string
	From, To  store.Revision
	Lines     []diffLine
	Added     int
	Removed   int
	CanWrite  bool
}

func (u *UI) serveDiff(w http.ResponseWriter, r *http.Request, s *session) {
	repo, err := u.repoParam(r, s, store.LevelRead)
	if err != nil {
		u.fail(w, r, s, err)
		return
	}
	key := r.FormValue("key")
	page := diffPage{Repo: repo, Key: key, CanWrite: s.principal().Allows(repo, store.LevelWrite)}
	for _, side := range []struct {
		name string
		rev  *store.Revision
	}{{"from", &page.From}, {"to", &page.To}} {
		v, err := versionParam(r, side.name, false)
		if err == nil {
			*side.rev, err = u.revision(r.Context(), repo, key, v)
		}
		if err != nil {
			u.fail(w, r, s, err)
			return
		}
	}
	page.Lines = diffLines(*page.From.Content, *page.To.Content)
	page.Added, page.Removed = countDiff(page.Lines)
	u.page(w, r, s, "diff", "Changes to "+key, page)
}

// serveRestore brings back the content of a revision as a new revision,
// through the server's write path, as "teammemd restore" does.
func (u *UI) serveRestore(w http.ResponseWriter, r *http.Request, s *session) {
	repo, err := u.repoParam(r, s, store.LevelWrite)
	if err != nil {
		u.fail(w, r, s, err)
		return
	}
	key := r.PostFormValue("key")
	version, err := versionParam(r, "version", false)
	if err != nil {
		u.fail(w, r, s, err)
		return
	}
	rev, err := u.revision(r.Context(), repo, key, version)
	if err != nil {
		u.fail(w, r, s, err)
		return
	}
	res, proposal, err := u.backend.Write(r.Context(), s.principal(), repo, key, *rev.Content)
	if err != nil {
		u.fail(w, r, s, err)
		return
	}
	if proposal != 0 {
		u.log.InfoContext(r.Context(), "web restore proposed", "subject", s.Subject, "repo", repo, "key", key,
			"from", version, "proposal", proposal)
		http.Redirect(w, r, proposalPath(proposal), http.StatusSeeOther)
		return
	}
	u.log.InfoContext(r.Context(), "web restore", "subject", s.Subject, "repo", repo, "key", key,
		"from", version, "version", res.Version)
	http.Redirect(w, r, Prefix+"/history?repo="+url.QueryEscape(repo)+"&key="+url.QueryEscape(key), http.StatusSeeOther)
}
