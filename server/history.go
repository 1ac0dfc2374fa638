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
	q, repo, err := repoQuery(r)
	if err != nil {
		return err
	}
	key := q.Get(api.ParamKey)
	if _, given := q[api.ParamKey]; given {
		if err := api.ValidateKey(key, s.limits); err != nil {
			return err
		}
	}
	limit, err := intParam(q.Get(api.ParamLimit), defaultHistoryLimit, maxHistoryLimit, "limit")
	if err != nil {
		return err
	}
	hq, err := historyCursor(q.Get(api.ParamCursor), key == "")
	if err != nil {
		return err
	}
	if hq.NoContent, err = noContentParam(q); err != nil {
		return err
	}
	if !p.Allows(repo, store.LevelRead) {
		return denied(p, repo, store.LevelRead)
	}
	hq.Repo, hq.Key, hq.Limit = repo, key, limit+1
	revs, err := s.store.History(r.Context(), hq)
	if errors.Is(err, store.ErrNotFound) || (err == nil && len(revs) == 0 && hq.Before == 0) {
		return api.NewError(http.StatusNotFound, api.CodeNotFound, "this repo has no history for this key")
	}
	if err != nil {
		return fmt.Errorf("history of %s: %w", repo, err)
	}
	s.writeJSON(w, http.StatusOK, historyPage(repo, key, revs, limit))
	return nil
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

// historyPage turns up to limit+1 revisions into a page, with a cursor when
// there are more.
func historyPage(repo, key string, revs []store.Revision, limit int) api.HistoryResponse {
	page := api.HistoryResponse{Repo: repo, Key: key, Revisions: make([]api.Revision, 0, min(len(revs), limit))}
	if len(revs) > limit {
		revs = revs[:limit]
		page.NextCursor = strconv.FormatInt(revs[limit-1].Version, 10)
		if key == "" {
			page.NextCursor += ":" + revs[limit-1].Key
		}
	}
	for _, rev := range revs {
		shown := ""
		if key == "" {
			shown = rev.Key
		}
		page.Revisions = append(page.Revisions, api.Revision{
			Key: shown, Version: rev.Version, Checksum: rev.Checksum, Deleted: rev.Deleted,
			Subject: rev.Subject, Time: rev.Time.UTC(), Content: rev.Content,
		})
	}
	return page
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
		s.log.Error("prune history", "error", err)
	case n > 0:
		s.log.Info("history pruned", "revisions", n, "keepVersions", s.history.KeepVersions)
	}
}
