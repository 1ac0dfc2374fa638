package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/store"
)

// repoLister is a store that can list its repos; both stores can.
type repoLister interface {
	Repos(ctx context.Context) ([]string, error)
}

// noRepo answers a repo the caller may not read exactly as one that does
// not exist, so that no answer tells one from the other; a slug that
// holds a secret is named redacted (shownRepo).
func (s *Server) noRepo(ctx context.Context, repo string) error {
	return api.NewError(http.StatusNotFound, api.CodeNotFound,
		fmt.Sprintf("no repo %s among those this credential can read", s.shownRepo(ctx, repo)))
}

// Readable checks repo's slug and the caller's read grant on it.
func (c *Caller) Readable(ctx context.Context, repo string) error {
	if problem := api.SlugProblem(repo); problem != "" {
		return api.NewError(http.StatusBadRequest, api.CodeInvalidRequest, "invalid repo: the slug "+problem)
	}
	p, err := c.principal(ctx, repo)
	if err != nil || !p.Allows(repo, store.LevelRead) {
		return c.s.noRepo(ctx, repo)
	}
	return nil
}

// Repos lists the repos the caller may read that hold team memory, in
// byte order.
func (c *Caller) Repos(ctx context.Context) ([]string, error) {
	rl, ok := c.s.store.Store.(repoLister)
	if !ok {
		return nil, errors.New("this server's store cannot list its repos: name the repo")
	}
	all, err := rl.Repos(ctx)
	if err != nil {
		return nil, fmt.Errorf("list repos: %w", err)
	}
	return slices.DeleteFunc(all, func(r string) bool { return !c.p.Allows(r, store.LevelRead) }), nil
}

// Notes returns repo's entries as a full GET does; a repo never written
// is empty, at version 0.
func (c *Caller) Notes(ctx context.Context, repo string) (api.FullResponse, error) {
	if err := c.Readable(ctx, repo); err != nil {
		return api.FullResponse{}, err
	}
	snap, err := c.s.store.Snapshot(ctx, repo, true)
	if errors.Is(err, store.ErrNotFound) {
		snap, err = store.Snapshot{Repo: repo, Checksum: api.RepoChecksum(nil, nil)}, nil
	}
	if err != nil {
		return api.FullResponse{}, fmt.Errorf("snapshot %s: %w", repo, err)
	}
	return api.FullResponse{
		OrganizationID: c.s.org, Repo: repo, Version: snap.Version,
		LastModified: snap.LastModified.UTC(), Checksum: snap.Checksum,
		Content: api.Content{Entries: orEmpty(snap.Entries), EntryChecksums: orEmpty(snap.EntryChecksums), DeletedEntries: orEmpty(snap.Deleted)},
	}, nil
}

// Changed returns a channel closed once repo may have changed after the
// call, as change waits learn it, and the function that stops listening.
func (c *Caller) Changed(repo string) (<-chan struct{}, func()) {
	return c.s.waker.Subscribe(repo)
}

// Write applies req to repo on the condition that the repo's checksum is
// still ifMatch ("" for none), as a PUT with that body and If-Match
// would: the body is held to the PUT's form and size, then to access,
// the secret scan, the precondition and the entry count. A write the
// store has no room for is refused as the PUT's is, with the 507.
func (c *Caller) Write(ctx context.Context, repo string, req api.PutRequest, ifMatch string) (api.PutResponse, error) {
	if err := c.Readable(ctx, repo); err != nil {
		return api.PutResponse{}, err
	}
	body, err := json.Marshal(req)
	if err != nil {
		return api.PutResponse{}, fmt.Errorf("encode write: %w", err)
	}
	if int64(len(body)) > c.s.limits.MaxBodyBytes {
		return api.PutResponse{}, api.NewError(http.StatusRequestEntityTooLarge, api.CodeBodyTooLarge,
			fmt.Sprintf("the write is over the %d byte limit of a request body", c.s.limits.MaxBodyBytes)).With("max_bytes", c.s.limits.MaxBodyBytes)
	}
	checked, err := api.ReadPut(bytes.NewReader(body), c.s.limits)
	if err != nil {
		return api.PutResponse{}, err
	}
	p, err := c.principal(ctx, repo)
	if err != nil {
		return api.PutResponse{}, err
	}
	resp, err := c.s.write(ctx, p, repo, checked, ifMatch, origin{client: c.client})
	if errors.Is(err, store.ErrFull) {
		return resp, c.s.refuseFull(ctx, err)
	}
	return resp, err
}

// History lists key's revisions in repo, newest first, as the history
// route does: at most limit, with their content when asked.
func (c *Caller) History(ctx context.Context, repo, key string, limit int, content bool) (api.HistoryResponse, error) {
	if err := c.Readable(ctx, repo); err != nil {
		return api.HistoryResponse{}, err
	}
	if err := api.ValidateKey(key, c.s.limits); err != nil {
		return api.HistoryResponse{}, api.NewError(http.StatusBadRequest, api.CodeInvalidRequest, "invalid key: "+err.Error())
	}
	hr := historyRequest{q: store.HistoryQuery{Repo: repo, Key: key}, limit: min(max(limit, 1), maxHistoryLimit), content: content}
	page, err := c.s.readHistoryPage(ctx, hr)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return api.HistoryResponse{}, fmt.Errorf("history of %s: %w", repo, err)
	}
	out := api.HistoryResponse{Repo: repo, Key: key, Revisions: []api.Revision{}}
	for _, rev := range page.revs {
		if content {
			if rev, err = c.s.withContent(ctx, rev); err != nil {
				return api.HistoryResponse{}, err
			}
		}
		out.Revisions = append(out.Revisions, api.Revision{Version: rev.Version, Checksum: rev.Checksum,
			Deleted: rev.Deleted, Subject: rev.Subject, Time: rev.Time.UTC(), Size: rev.Size, Content: rev.Content})
	}
	if page.more && len(page.revs) > 0 {
		out.NextCursor = nextCursor(page.revs[len(page.revs)-1], false)
	}
	return out, nil
}
