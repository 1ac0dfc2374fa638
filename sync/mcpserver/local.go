package mcpserver

import (
	"context"
	"errors"
	"fmt"

	"github.com/teammemd/teammemd/server/api"
	memsync "github.com/teammemd/teammemd/sync"
	"github.com/teammemd/teammemd/sync/memindex"
)

// A workspace is the Space of a team directory on this machine.

func (ws *workspace) Repo() string           { return ws.t.Repo }
func (ws *workspace) Dir() string            { return ws.t.Dir }
func (ws *workspace) Index() *memindex.Index { return ws.index }
func (ws *workspace) Read(key string) ([]byte, error) {
	data, _, err := ws.notes.Read(key)
	return data, err
}

// Put writes key's note through the notes of the team directory (secret
// scan, precondition, atomic swap), then indexes it at once, ahead of the
// watcher.
func (ws *workspace) Put(ctx context.Context, key string, data []byte, ifMatch string) (string, error) {
	sum, err := ws.notes.Write(ctx, key, data, ifMatch)
	if err != nil {
		return "", err
	}
	var ch memindex.Changes
	switch added, changed := ws.index.Put(key, data, ws.s.opts.Now()); {
	case added:
		ch.Added = []string{key}
	case changed:
		ch.Changed = []string{key}
	}
	ws.s.announce(ctx, ws, ch)
	return sum, nil
}

// Delete deletes key's note when it is the version ifMatch, and drops it
// from the index at once.
func (ws *workspace) Delete(ctx context.Context, key, ifMatch string) error {
	if err := ws.notes.Delete(key, ifMatch); err != nil {
		return err
	}
	if ws.index.Remove(key) {
		ws.s.announce(ctx, ws, memindex.Changes{Removed: []string{key}})
	}
	return nil
}

// History asks the server the daemon syncs with.
func (ws *workspace) History(ctx context.Context, key string, limit int, content bool) (api.HistoryResponse, error) {
	if ws.t.History == nil {
		return api.HistoryResponse{}, fmt.Errorf("no server is configured for %s, so there is no history to list (teammemd doctor says how to set one)", ws.t.Repo)
	}
	page, err := ws.t.History.HistoryPage(ctx, ws.t.Repo, memsync.HistoryRequest{Key: key, Limit: limit, NoContent: !content})
	var ae *api.Error
	if errors.As(err, &ae) && ae.Code == api.CodeNotFound {
		return api.HistoryResponse{}, fmt.Errorf("the server has no revision of %s in %s", key, ws.t.Repo)
	}
	return page, err
}
