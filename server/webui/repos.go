package webui

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/store"
)

// maxScannedRevisions bounds how much of a repo's history a page reads to
// learn when each note last changed.
const maxScannedRevisions = 20_000

// errScanDone ends a history read early.
var errScanDone = errors.New("scan done")

// readableRepos lists the repos s may read, sorted.
func (u *UI) readableRepos(ctx context.Context, s *session) ([]string, error) {
	all, err := u.store.Repos(ctx)
	if err != nil {
		return nil, fmt.Errorf("list repos: %w", err)
	}
	// A repo under review whose every write so far waits for a reviewer
	// holds no note yet, and is listed by its proposals.
	pending, err := u.store.ListProposals(ctx, store.ProposalQuery{State: store.ProposalPending, NoContent: true})
	if err != nil {
		return nil, fmt.Errorf("list proposals: %w", err)
	}
	for _, prop := range pending {
		all = append(all, prop.Repo)
	}
	p := s.principal()
	out := slices.DeleteFunc(slices.Clone(all), func(repo string) bool { return !p.Allows(repo, store.LevelRead) })
	slices.Sort(out)
	return slices.Compact(out), nil
}

// repoParam returns the repo a request names when s may act on it at
// level; a repo it may not read gets the 404 of one that does not exist.
func (u *UI) repoParam(r *http.Request, s *session, level store.Level) (string, error) {
	repo := r.FormValue("repo")
	if api.ValidateSlug(repo) != nil || !s.principal().Allows(repo, store.LevelRead) {
		return "", notFound()
	}
	if !s.principal().Allows(repo, level) {
		return "", &pageError{status: http.StatusForbidden, msg: "your grants let you read this repo, not change it"}
	}
	return repo, nil
}

// snapshot reads repo with its values; a repo never written is not found.
func (u *UI) snapshot(ctx context.Context, repo string) (store.Snapshot, error) {
	snap, err := u.store.Snapshot(ctx, repo, true)
	if errors.Is(err, store.ErrNotFound) {
		return store.Snapshot{}, notFound()
	}
	if err != nil {
		return store.Snapshot{}, fmt.Errorf("read %s: %w", repo, err)
	}
	return snap, nil
}

// reposPage lists the readable repos.
type reposPage struct {
	Repos []repoLine
}

func (u *UI) serveRepos(w http.ResponseWriter, r *http.Request, s *session) {
	repos, err := u.readableRepos(r.Context(), s)
	if err != nil {
		u.fail(w, r, s, err)
		return
	}
	lines, err := u.repoLines(r.Context(), s, repos)
	if err != nil {
		u.fail(w, r, s, err)
		return
	}
	u.page(w, r, s, "repos", "Repos", reposPage{Repos: lines})
}

// noteSummary is one note of a repo's list.
type noteSummary struct {
	Key, Name, Description string
	Bytes                  int
	Changed                time.Time
	By, Age                string
	Stale, OverCap         bool
}

// repoPage is a repo's notes.
type repoPage struct {
	Repo       string
	Notes      []noteSummary
	Stale      int
	StaleAfter string
	Version    int64
	// Review is set when writes to the repo are held for review; Reviewer
	// when the person may decide them.
	Review, Reviewer bool
}

func (u *UI) serveRepo(w http.ResponseWriter, r *http.Request, s *session) {
	repo, err := u.repoParam(r, s, store.LevelRead)
	if err != nil {
		u.fail(w, r, s, err)
		return
	}
	snap, err := u.snapshot(r.Context(), repo)
	if err != nil && !(isNotFound(err) && u.backend.ReviewRequired(repo)) {
		u.fail(w, r, s, err)
		return
	}
	last, err := u.lastChanges(r.Context(), repo, snap.Entries)
	if err != nil {
		u.fail(w, r, s, err)
		return
	}
	page := repoPage{Repo: repo, StaleAfter: days(u.cfg.StaleAfter), Version: snap.Version,
		Review: u.backend.ReviewRequired(repo), Reviewer: s.principal().Allows(repo, store.LevelReview)}
	for _, key := range sortedKeys(snap.Entries) {
		n := u.summarise(key, snap.Entries[key], last[key])
		if n.Stale {
			page.Stale++
		}
		page.Notes = append(page.Notes, n)
	}
	u.page(w, r, s, "repo", repo, page)
}

// summarise is a note's line in its repo's list.
func (u *UI) summarise(key, value string, last store.Revision) noteSummary {
	fields, _, _ := api.Frontmatter(value)
	n := noteSummary{Key: key, Name: fields["name"], Description: fields["description"], Bytes: len(value),
		OverCap: len(value) > api.NoteMaxBytes}
	if !last.Time.IsZero() {
		n.Changed, n.By = last.Time, last.Subject
		n.Age, n.Stale = u.age(last.Time)
	}
	return n
}

// age says how long ago t was, and whether that makes a note stale.
func (u *UI) age(t time.Time) (string, bool) {
	d := u.now().Sub(t)
	return agoFor(d), d >= u.cfg.StaleAfter
}

// lastChanges returns the newest revision of each live key, reading the
// repo's history newest first until each has one or the bound is reached.
func (u *UI) lastChanges(ctx context.Context, repo string, live map[string]string) (map[string]store.Revision, error) {
	out := make(map[string]store.Revision, len(live))
	n := 0
	err := u.store.History(ctx, store.HistoryQuery{Repo: repo, NoContent: true}, func(rev store.Revision) error {
		if _, ok := live[rev.Key]; ok {
			if _, seen := out[rev.Key]; !seen {
				out[rev.Key] = rev
			}
		}
		if n++; len(out) == len(live) || n >= maxScannedRevisions {
			return errScanDone
		}
		return nil
	})
	if err != nil && !errors.Is(err, errScanDone) && !errors.Is(err, store.ErrNotFound) {
		return nil, fmt.Errorf("read history of %s: %w", repo, err)
	}
	return out, nil
}

// days writes d in whole days.
func days(d time.Duration) string {
	return plural(int(d/(24*time.Hour)), "day")
}

// agoFor says how long d is, in its largest whole unit, and "ago".
func agoFor(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return plural(int(d/time.Minute), "minute") + " ago"
	case d < 48*time.Hour:
		return plural(int(d/time.Hour), "hour") + " ago"
	}
	return plural(int(d/(24*time.Hour)), "day") + " ago"
}

// trimmed cuts s to max bytes at a rune boundary.
func trimmed(s string, max int) string {
	if len(s) <= max {
		return s
	}
	return strings.ToValidUTF8(s[:max], "") + "…"
}

// sortedKeys returns m's keys in byte order.
func sortedKeys(m map[string]string) []string {
	return slices.Sorted(maps.Keys(m))
}

// isNotFound reports whether err is the page of a repo or note that does
// not exist.
func isNotFound(err error) bool {
	var pe *pageError
	return errors.As(err, &pe) && pe.status == http.StatusNotFound
}
