package webui

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/store"
)

// proposalPath is the page of proposal id.
func proposalPath(id int64) string { return fmt.Sprintf("%s/proposal?id=%d", Prefix, id) }

// proposalRow is a proposal in a list.
type proposalRow struct {
	store.Proposal
	// Conflicts are the keys changed on the server since it was made.
	Conflicts []string
}

// reviewPage is a repo's proposals as its reviewers see them.
type reviewPage struct {
	Repo     string
	Required bool
	Pending  []proposalRow
	Rejected []store.Proposal
	Days     string
}

// serveReview lists a repo's pending proposals, and those rejected
// lately, to a person with a review grant on it; to anyone else the page
// is not there.
func (u *UI) serveReview(w http.ResponseWriter, r *http.Request, s *session) {
	repo, err := u.reviewRepo(r, s)
	if err != nil {
		u.fail(w, r, s, err)
		return
	}
	ctx := r.Context()
	page := reviewPage{Repo: repo, Required: u.backend.ReviewRequired(repo), Days: days(auditWindow)}
	pending, err := u.backend.Proposals(ctx, s.principal(), store.ProposalQuery{Repo: repo, State: store.ProposalPending})
	if err != nil {
		u.fail(w, r, s, err)
		return
	}
	if page.Pending, err = u.withConflicts(ctx, repo, pending); err != nil {
		u.fail(w, r, s, err)
		return
	}
	if page.Rejected, err = u.recentlyRejected(ctx, s, store.ProposalQuery{Repo: repo, State: store.ProposalRejected}); err != nil {
		u.fail(w, r, s, err)
		return
	}
	u.page(w, r, s, "review", "Review · "+repo, page)
}

// reviewRepo is the repo a request names when s holds a review grant on
// it; else the 404 of a page that is not there.
func (u *UI) reviewRepo(r *http.Request, s *session) (string, error) {
	repo := r.FormValue("repo")
	if api.ValidateSlug(repo) != nil || !s.principal().Allows(repo, store.LevelReview) {
		return "", notFound()
	}
	return repo, nil
}

// withConflicts marks the keys of each pending proposal that changed on
// the server since it was made.
func (u *UI) withConflicts(ctx context.Context, repo string, props []store.Proposal) ([]proposalRow, error) {
	snap, err := u.store.Snapshot(ctx, repo, false)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return nil, fmt.Errorf("read %s: %w", repo, err)
	}
	rows := make([]proposalRow, len(props))
	for i, p := range props {
		rows[i].Proposal = p
		for _, k := range p.Keys() {
			if snap.EntryChecksums[k] != p.Base[k] {
				rows[i].Conflicts = append(rows[i].Conflicts, k)
			}
		}
	}
	return rows, nil
}

// recentlyRejected lists the proposals q selects that were rejected in the
// last auditWindow by someone other than their author (a withdrawal or a
// proposal superseded by its author's next one is no news), newest first.
func (u *UI) recentlyRejected(ctx context.Context, s *session, q store.ProposalQuery) ([]store.Proposal, error) {
	list, err := u.backend.Proposals(ctx, s.principal(), q)
	if err != nil {
		return nil, err
	}
	since := u.now().Add(-auditWindow)
	list = slices.DeleteFunc(list, func(p store.Proposal) bool {
		return p.Reviewer == p.Subject || p.Decided.Before(since)
	})
	slices.Reverse(list)
	return list, nil
}

// ownPage is a person's own proposals to a repo.
type ownPage struct {
	Repo     string
	Reviewer bool
	Pending  []store.Proposal
	Rejected []store.Proposal
	Days     string
}

// serveOwnProposals lists the proposals s made to a repo that wait for
// review or were rejected lately, with the reviewer's reason.
func (u *UI) serveOwnProposals(w http.ResponseWriter, r *http.Request, s *session) {
	repo, err := u.repoParam(r, s, store.LevelRead)
	if err != nil {
		u.fail(w, r, s, err)
		return
	}
	page := ownPage{Repo: repo, Reviewer: s.principal().Allows(repo, store.LevelReview), Days: days(auditWindow)}
	if page.Pending, page.Rejected, err = u.own(r.Context(), s, repo); err != nil {
		u.fail(w, r, s, err)
		return
	}
	u.page(w, r, s, "proposals", "Your proposals · "+repo, page)
}

// own lists s's pending proposals to repo and those a reviewer rejected
// lately.
func (u *UI) own(ctx context.Context, s *session, repo string) (pending, rejected []store.Proposal, err error) {
	q := store.ProposalQuery{Repo: repo, State: store.ProposalPending, Subject: s.Subject}
	if pending, err = u.backend.Proposals(ctx, s.principal(), q); err != nil {
		return nil, nil, err
	}
	q.State = store.ProposalRejected
	if rejected, err = u.recentlyRejected(ctx, s, q); err != nil {
		return nil, nil, err
	}
	return pending, rejected, nil
}

// repoLine is a repo in the list of repos, with the proposals that wait
// for the person.
type repoLine struct {
	Repo string
	// Reviewer is set when the person holds a review grant on it; Pending
	// then counts the proposals waiting for review.
	Reviewer bool
	Pending  int
	// OwnPending and OwnRejected count the person's own proposals waiting,
	// and rejected lately.
	OwnPending, OwnRejected int
}

// repoLines counts the proposals of each repo for s.
func (u *UI) repoLines(ctx context.Context, s *session, repos []string) ([]repoLine, error) {
	lines := make([]repoLine, len(repos))
	for i, repo := range repos {
		l := repoLine{Repo: repo, Reviewer: s.principal().Allows(repo, store.LevelReview)}
		if l.Reviewer {
			pending, err := u.backend.Proposals(ctx, s.principal(), store.ProposalQuery{Repo: repo, State: store.ProposalPending})
			if err != nil {
				return nil, err
			}
			l.Pending = len(pending)
		}
		pending, rejected, err := u.own(ctx, s, repo)
		if err != nil {
			return nil, err
		}
		l.OwnPending, l.OwnRejected = len(pending), len(rejected)
		lines[i] = l
	}
	return lines, nil
}

// idParam reads a proposal id.
func idParam(r *http.Request) (int64, error) {
	id, err := strconv.ParseInt(r.FormValue("id"), 10, 64)
	if err != nil || id < 1 {
		return 0, notFound()
	}
	return id, nil
}
