package memsync

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"

	"github.com/teammemd/teammemd/internal/shell"
	"github.com/teammemd/teammemd/server/api"
)

// OpHistory is the operation of a history request, for Retry.
const OpHistory = "history"

// maxHistoryPages bounds how many pages History follows: at the server's
// largest page, 500, that is 100,000 revisions.
const maxHistoryPages = 200

// historyPageSize is the page size History asks for.
const historyPageSize = 500

// HistoryRequest selects one page of a history.
type HistoryRequest struct {
	// Key is the entry whose revisions to list; empty for the whole repo.
	Key string
	// Cursor is where the page starts: "" for the newest, else the
	// previous page's NextCursor.
	Cursor string
	// Limit is the page size.
	Limit int
	// NoContent asks for the revisions without their content
	// (content=false); a server that ignores it sends the content, and
	// the page drops it, keeping its size.
	NoContent bool
}

// HistoryPage fetches one page of the history of hr.Key in repo, or of the
// whole repo when it is empty.
func (c *Client) HistoryPage(ctx context.Context, repo string, hr HistoryRequest) (api.HistoryResponse, error) {
	q := url.Values{api.ParamRepo: {repo}, api.ParamLimit: {fmt.Sprint(hr.Limit)}}
	if hr.Key != "" {
		q.Set(api.ParamKey, hr.Key)
	}
	if hr.Cursor != "" {
		q.Set(api.ParamCursor, hr.Cursor)
	}
	if hr.NoContent {
		q.Set(api.ParamContent, "false")
	}
	u := *c.base
	u.Path = c.base.Path + api.HistoryPath
	u.RawQuery = q.Encode()
	var out api.HistoryResponse
	rq := request{op: OpHistory, repo: repo, method: "GET", url: u.String(), maxBody: protocolLimits.HistoryBodyBytes(hr.Limit, !hr.NoContent)}
	if _, err := c.do(ctx, rq, &out); err != nil {
		return out, fmt.Errorf("history of %s: %w", repo, err)
	}
	if hr.NoContent {
		for i := range out.Revisions {
			dropContent(&out.Revisions[i])
		}
	}
	return out, nil
}

// dropContent leaves r's content out, keeping its size.
func dropContent(r *api.Revision) {
	if r.Content != nil && r.Size == nil {
		n := int64(len(*r.Content))
		r.Size = &n
	}
	r.Content = nil
}

// ErrNoHistory is returned by History for a key, or a repo, the server has
// no revisions of.
var ErrNoHistory = errors.New("no history on the server")

// History returns every revision of key, or of the whole repo when key is
// empty, newest first, following the pages, without their content: Size
// tells how large a revision's content is while the server keeps it.
func (e *Engine) History(ctx context.Context, key string) ([]api.Revision, error) {
	var all []api.Revision
	err := e.eachRevision(ctx, key, func(r api.Revision) bool {
		all = append(all, r)
		return true
	})
	return all, err
}

// eachRevision calls fn with every revision of key, or of the whole repo,
// newest first and without content, page by page, until fn returns false.
func (e *Engine) eachRevision(ctx context.Context, key string, fn func(api.Revision) bool) error {
	cursor := ""
	for range maxHistoryPages {
		page, err := e.historyPage(ctx, HistoryRequest{Key: key, Cursor: cursor, Limit: historyPageSize, NoContent: true})
		if err != nil {
			return err
		}
		for _, r := range page.Revisions {
			if r.Key == "" {
				r.Key = key
			}
			if !fn(r) {
				return nil
			}
		}
		if cursor = page.NextCursor; cursor == "" {
			return nil
		}
	}
	return fmt.Errorf("history of %s in %s: more than %d pages", whichKeys(key), e.cfg.Repo, maxHistoryPages)
}

// historyPage fetches one page of the repo's history; a key or repo
// without any is ErrNoHistory.
func (e *Engine) historyPage(ctx context.Context, hr HistoryRequest) (api.HistoryResponse, error) {
	c, err := e.teamClient()
	if err != nil {
		return api.HistoryResponse{}, err
	}
	page, err := c.HistoryPage(ctx, e.cfg.Repo, hr)
	var ae *api.Error
	if errors.As(err, &ae) && ae.Code == api.CodeNotFound {
		return page, fmt.Errorf("%s in %s: %w", whichKeys(hr.Key), e.cfg.Repo, ErrNoHistory)
	}
	return page, err
}

// Revision returns revision version of key with its content (none for a
// deletion, or once pruned), or its newest when version is 0: one request
// for that one revision.
func (e *Engine) Revision(ctx context.Context, key string, version int64) (api.Revision, error) {
	hr := HistoryRequest{Key: key, Limit: 1}
	if version > 0 {
		hr.Cursor = strconv.FormatInt(version+1, 10) // the newest below it: version itself, if key has it
	}
	page, err := e.historyPage(ctx, hr)
	if err != nil {
		return api.Revision{}, err
	}
	if len(page.Revisions) == 0 || (version > 0 && page.Revisions[0].Version != version) {
		return api.Revision{}, fmt.Errorf("%s has no revision %d in %s (teammemd history %s lists them)", key, version, e.cfg.Repo, shell.Quote(key))
	}
	r := page.Revisions[0]
	r.Key = key
	return r, nil
}

// whichKeys names key, or the whole repo, in a message.
func whichKeys(key string) string {
	if key == "" {
		return "every key"
	}
	return key
}

// ReadLocal returns the content of key's file in the team directory, read
// through its root; a missing file is fs.ErrNotExist.
func (e *Engine) ReadLocal(key string) ([]byte, error) {
	if err := api.ValidateKey(key, api.Limits{}); err != nil {
		return nil, err
	}
	td, err := openTeamDir(e.cfg.Dir)
	if err != nil {
		return nil, err
	}
	defer td.close()
	return td.read(key)
}
