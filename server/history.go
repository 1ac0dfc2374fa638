package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/auth"
	"github.com/teammemd/teammemd/server/store"
)

// History page sizes.
const (
	defaultHistoryLimit = 50
	maxHistoryLimit     = 500
)

// serveHistory lists the revisions of one entry, or without a key of every
// entry of the repo, newest first, a page at a time; the cursor is where
// the next page starts: a version, and for the whole repo the key too.
func (s *Server) serveHistory(w http.ResponseWriter, r *http.Request, p auth.Principal) error {
	hr, err := s.parseHistory(r)
	if err != nil {
		return err
	}
	if !p.Allows(hr.q.Repo, store.LevelRead) {
		return denied(p, hr.q.Repo, store.LevelRead)
	}
	page, err := s.readHistoryPage(r.Context(), hr)
	if errors.Is(err, store.ErrNotFound) || (err == nil && len(page.revs) == 0 && hr.q.Before == 0) {
		return api.NewError(http.StatusNotFound, api.CodeNotFound, "this repo has no history for this key")
	}
	if err != nil {
		return fmt.Errorf("history of %s: %w", hr.q.Repo, err)
	}
	s.sendHistoryPage(w, r, hr, page)
	return nil
}

// historyRequest is a history request's parameters.
type historyRequest struct {
	// q selects the revisions: repo, key and cursor.
	q store.HistoryQuery
	// limit is the most revisions the page holds.
	limit int
	// content is whether the page carries each revision's content.
	content bool
}

// parseHistory reads a history request's parameters.
func (s *Server) parseHistory(r *http.Request) (historyRequest, error) {
	q, repo, err := s.repoQuery(r)
	if err != nil {
		return historyRequest{}, err
	}
	key := q.Get(api.ParamKey)
	if _, given := q[api.ParamKey]; given {
		if err := api.ValidateKey(key, s.limits); err != nil {
			return historyRequest{}, err
		}
	}
	limit, err := intParam(q.Get(api.ParamLimit), defaultHistoryLimit, maxHistoryLimit, "limit")
	if err != nil {
		return historyRequest{}, err
	}
	hq, err := historyCursor(q.Get(api.ParamCursor), key == "")
	if err != nil {
		return historyRequest{}, err
	}
	noContent, err := noContentParam(q)
	if err != nil {
		return historyRequest{}, err
	}
	hq.Repo, hq.Key = repo, key
	return historyRequest{q: hq, limit: limit, content: !noContent}, nil
}

// historyCursor parses a history page's cursor: a version, and for the
// whole repo's history "version:key".
func historyCursor(raw string, wholeRepo bool) (store.HistoryQuery, error) {
	version, key, hasKey := strings.Cut(raw, ":")
	if hasKey && !wholeRepo {
		return store.HistoryQuery{}, api.NewError(http.StatusBadRequest, api.CodeInvalidRequest, "cursor must be a version")
	}
	before, err := intParam(version, 0, 1<<62, "cursor")
	if err != nil {
		return store.HistoryQuery{}, err
	}
	return store.HistoryQuery{Before: int64(before), BeforeKey: key}, nil
}

// noContentParam reports whether a history request asks for revisions
// without their content: content=false. Absent or "true" sends it.
func noContentParam(q url.Values) (bool, error) {
	vals, given := q[api.ParamContent]
	if !given {
		return false, nil
	}
	switch {
	case len(vals) == 1 && vals[0] == "true":
		return false, nil
	case len(vals) == 1 && vals[0] == "false":
		return true, nil
	}
	return false, api.NewError(http.StatusBadRequest, api.CodeInvalidRequest, "content must be true or false, given once")
}

// intParam parses a positive integer query parameter; empty means def.
func intParam(raw string, def, max int, name string) (int, error) {
	if raw == "" {
		return def, nil
	}
	n, err := strconv.Atoi(raw)
	if err != nil || n < 1 || n > max {
		return 0, api.NewError(http.StatusBadRequest, api.CodeInvalidRequest,
			fmt.Sprintf("%s must be a whole number from 1 to %d", name, max))
	}
	return n, nil
}

// pruneLoop applies the history retention now and then every interval
// until ctx is done.
func (s *Server) pruneLoop(ctx context.Context) {
	ticker := time.NewTicker(s.history.PruneInterval)
	defer ticker.Stop()
	for {
		s.prune(ctx)
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
	}
}

// prune drops the content of revisions outside the retention.
func (s *Server) prune(ctx context.Context) {
	olderThan := s.now().Add(-s.history.KeepFor)
	n, err := s.store.PruneHistory(ctx, s.history.KeepVersions, olderThan)
	switch {
	case err != nil && ctx.Err() == nil:
		s.log.Error("prune history", "err", err)
	case n > 0:
		s.log.Info("history pruned", "revisions", n, "keepVersions", s.history.KeepVersions)
	}
}
