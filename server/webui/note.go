package webui

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/store"
)

// notePage is one note: its content rendered, its age and who last
// changed it, and what may be done with it.
type notePage struct {
	Repo, Key string
	Note      renderedNote
	Bytes     int
	Last      store.Revision
	Age       string
	Stale     bool
	// OverCap is set for a note Claude Code skips for its size.
	OverCap  bool
	MaxBytes int
	CanWrite bool
	Admin    bool
	// Proposals are the pending proposals that change the note, as the
	// person may see them: every one to a reviewer, their own to anyone
	// else.
	Proposals []store.Proposal
}

func (u *UI) serveNote(w http.ResponseWriter, r *http.Request, s *session) {
	repo, key, value, err := u.noteParams(r, s)
	if err != nil {
		u.fail(w, r, s, err)
		return
	}
	rendered, err := renderNote(value)
	if err != nil {
		u.fail(w, r, s, err)
		return
	}
	page := notePage{Repo: repo, Key: key, Note: rendered, Bytes: len(value), OverCap: len(value) > api.NoteMaxBytes,
		MaxBytes: api.NoteMaxBytes, CanWrite: s.principal().Allows(repo, store.LevelWrite), Admin: u.isAdmin(s)}
	if page.Last, err = u.newestRevision(r.Context(), repo, key); err != nil {
		u.fail(w, r, s, err)
		return
	}
	if !page.Last.Time.IsZero() {
		page.Age, page.Stale = u.age(page.Last.Time)
	}
	if page.Proposals, err = u.pendingFor(r.Context(), s, repo, key); err != nil {
		u.fail(w, r, s, err)
		return
	}
	u.page(w, r, s, "note", key+" · "+repo, page)
}

// pendingFor lists the pending proposals to repo that change key and s
// may see.
func (u *UI) pendingFor(ctx context.Context, s *session, repo, key string) ([]store.Proposal, error) {
	list, err := u.backend.Proposals(ctx, s.principal(), store.ProposalQuery{Repo: repo, State: store.ProposalPending})
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(list, func(p store.Proposal) bool { _, ok := p.Base[key]; return !ok }), nil
}

// noteParams returns the repo and key a request names and the note's
// live content, when s may read it.
func (u *UI) noteParams(r *http.Request, s *session) (repo, key, value string, err error) {
	if repo, err = u.repoParam(r, s, store.LevelRead); err != nil {
		return "", "", "", err
	}
	snap, err := u.snapshot(r.Context(), repo)
	if err != nil {
		return "", "", "", err
	}
	key = r.FormValue("key")
	value, ok := snap.Entries[key]
	if !ok {
		return "", "", "", notFound()
	}
	return repo, key, value, nil
}

// newestRevision is the newest revision of key, without content; the zero
// Revision when it has none.
func (u *UI) newestRevision(ctx context.Context, repo, key string) (store.Revision, error) {
	var last store.Revision
	err := u.store.History(ctx, store.HistoryQuery{Repo: repo, Key: key, Limit: 1, NoContent: true}, func(rev store.Revision) error {
		last = rev
		return nil
	})
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return store.Revision{}, fmt.Errorf("read history of %s in %s: %w", key, repo, err)
	}
	return last, nil
}

// Search bounds: the notes shown, and the content read, after which the
// search stops and says it was cut short.
const (
	maxSearchResults = 50
	maxSearchBytes   = 64 << 20
	maxQueryBytes    = 200
	snippetBytes     = 160
)

// searchHit is one note a search found.
type searchHit struct {
	Repo, Key, Snippet string
}

// searchPage is a search and what it found.
type searchPage struct {
	Query     string
	Hits      []searchHit
	Truncated bool
}

// serveSearch finds the notes, in the repos s may read, whose key or
// content holds every word of the query, case-insensitively.
func (u *UI) serveSearch(w http.ResponseWriter, r *http.Request, s *session) {
	query := strings.TrimSpace(r.FormValue("q"))
	page := searchPage{Query: query}
	if len(query) > maxQueryBytes {
		u.fail(w, r, s, &pageError{status: http.StatusBadRequest, msg: fmt.Sprintf("a search may be at most %d bytes", maxQueryBytes)})
		return
	}
	if terms := strings.Fields(strings.ToLower(query)); len(terms) > 0 {
		var err error
		if page.Hits, page.Truncated, err = u.search(r.Context(), s, terms); err != nil {
			u.fail(w, r, s, err)
			return
		}
	}
	u.page(w, r, s, "search", "Search", page)
}

func (u *UI) search(ctx context.Context, s *session, terms []string) ([]searchHit, bool, error) {
	repos, err := u.readableRepos(ctx, s)
	if err != nil {
		return nil, false, err
	}
	var hits []searchHit
	read := 0
	for _, repo := range repos {
		snap, err := u.store.Snapshot(ctx, repo, true)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, false, fmt.Errorf("search %s: %w", repo, err)
		}
		for _, key := range sortedKeys(snap.Entries) {
			value := snap.Entries[key]
			if read += len(value); read > maxSearchBytes {
				return hits, true, nil
			}
			if snippet, ok := match(key, value, terms); ok {
				if len(hits) == maxSearchResults {
					return hits, true, nil
				}
				hits = append(hits, searchHit{Repo: repo, Key: key, Snippet: snippet})
			}
		}
	}
	return hits, false, nil
}

// match reports whether every term is in key or value, with the line of
// value where the first term is, or its start.
func match(key, value string, terms []string) (string, bool) {
	lowerKey, lower := strings.ToLower(key), strings.ToLower(value)
	first := -1
	for _, t := range terms {
		i := strings.Index(lower, t)
		if i < 0 && !strings.Contains(lowerKey, t) {
			return "", false
		}
		if first < 0 && i >= 0 {
			first = i
		}
	}
	return snippetAt(value, max(first, 0)), true
}

// snippetAt is the line of value around byte i, cut to snippetBytes.
func snippetAt(value string, i int) string {
	i = min(i, len(value))
	start := strings.LastIndexByte(value[:i], '\n') + 1
	line, _, _ := strings.Cut(value[start:], "\n")
	return trimmed(strings.TrimSpace(line), snippetBytes)
}
