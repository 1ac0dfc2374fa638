package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"strings"
	"time"

	"github.com/teammemd/teammemd/server/api"
	memsync "github.com/teammemd/teammemd/sync"
	"github.com/teammemd/teammemd/sync/memindex"
)

// remoteSpace is a repo on the team's server as one caller sees it.
type remoteSpace struct {
	st    Store
	cache *repoCache
	snap  *repoSnap
}

func (sp *remoteSpace) Repo() string           { return sp.snap.repo }
func (sp *remoteSpace) Dir() string            { return "" }
func (sp *remoteSpace) Index() *memindex.Index { return sp.snap.index }

func (sp *remoteSpace) Read(key string) ([]byte, error) {
	_, text, ok := sp.snap.index.Get(key)
	if !ok {
		return nil, fmt.Errorf("%s: %w", key, fs.ErrNotExist)
	}
	return []byte(text), nil
}

// writeAttempts bounds the tries of one write that another write to the
// repo, of another note, keeps getting ahead of.
const writeAttempts = 3

// Put writes key's note through the server's PUT checks, on the
// condition that the note is still the version ifMatch. A note of type
// user is refused, as a daemon holds one back unless told to share such
// notes: it belongs in its author's personal memory, not the team repo.
func (sp *remoteSpace) Put(ctx context.Context, key string, data []byte, ifMatch string) (string, error) {
	if err := memsync.CheckNoteKey(key); err != nil {
		return "", err
	}
	if memsync.CheckNote(key, data).Personal {
		return "", fmt.Errorf("refused: %s says type: user, a personal note by Claude Code's rules, which the team repo does not take; nothing was stored: write it to your personal memory instead", key)
	}
	err := sp.write(ctx, key, ifMatch, api.PutRequest{Entries: map[string]string{key: string(data)}})
	if err != nil {
		return "", err
	}
	return api.EntryChecksumBytes(data), nil
}

// Delete deletes key's note on the condition that it is the version
// ifMatch.
func (sp *remoteSpace) Delete(ctx context.Context, key, ifMatch string) error {
	if ifMatch == "" {
		return fmt.Errorf("%s: pass the sha256 of the version to delete", key)
	}
	return sp.write(ctx, key, ifMatch, api.PutRequest{Entries: map[string]string{}, SoftDeleteKeys: []string{key}})
}

// write applies req when key's note is the version ifMatch: it checks
// the note against the index, then writes on the condition that the repo
// is still the version indexed, so that the note cannot have changed in
// between. An index that disagrees with ifMatch, or a repo that changed
// meanwhile, is read anew before the write is refused or tried again: the
// index may lag behind a write the change feed has not told of yet.
func (sp *remoteSpace) write(ctx context.Context, key, ifMatch string, req api.PutRequest) error {
	fresh := false
	for attempt := 1; ; {
		cur := ""
		if n, _, ok := sp.snap.index.Get(key); ok {
			cur = n.Sum
		}
		retry := cur != ifMatch
		if retry && fresh {
			return &memsync.StaleError{Key: key, Want: ifMatch, Current: cur}
		}
		if !retry {
			resp, err := sp.st.Write(ctx, sp.snap.repo, req, sp.snap.checksum)
			if err == nil && resp.Review != nil {
				return fmt.Errorf("%s is held for review as proposal %d in %s: nobody reads it, this tool included, until a reviewer approves it (teammemd review show %d)",
					key, resp.Review.Proposal, sp.snap.repo, resp.Review.Proposal)
			}
			if err == nil {
				sp.indexWrite(key, req)
				return nil
			}
			var ae *api.Error
			if !errors.As(err, &ae) || ae.Code != api.CodePrecondition || attempt == writeAttempts {
				return remoteError(err)
			}
			attempt++
		}
		var err error
		if sp.snap, err = sp.cache.current(ctx, sp.st, sp.snap.repo, true); err != nil {
			return remoteError(err)
		}
		fresh = true
	}
}

// indexWrite puts a write into the index at once, so that the caller
// reads what it wrote before the change feed tells of it.
func (sp *remoteSpace) indexWrite(key string, req api.PutRequest) {
	if v, ok := req.Entries[key]; ok {
		sp.snap.index.Put(key, []byte(v), time.Now())
		return
	}
	sp.snap.index.Remove(key)
}

// History lists key's revisions on the server.
func (sp *remoteSpace) History(ctx context.Context, key string, limit int, content bool) (api.HistoryResponse, error) {
	page, err := sp.st.History(ctx, sp.snap.repo, key, limit, content)
	if err == nil && len(page.Revisions) == 0 {
		return page, fmt.Errorf("the server has no revision of %s in %s", key, sp.snap.repo)
	}
	return page, remoteError(err)
}

// serverError is a refusal of the server, worded for the agent.
type serverError struct{ e *api.Error }

func (se serverError) Unwrap() error { return se.e }

func (se serverError) Error() string {
	msg := se.e.Message
	if ids, ok := se.e.Details["rule_ids"].([]string); ok && len(ids) > 0 {
		msg = fmt.Sprintf("refused: the note looks like it holds a secret (rule %s); nothing was stored", strings.Join(ids, ", "))
	}
	if se.e.Status == http.StatusRequestEntityTooLarge || se.e.Status == http.StatusForbidden {
		msg = "refused: " + msg
	}
	return msg
}

// remoteError words a protocol error of the server for the agent; other
// errors pass as they are.
func remoteError(err error) error {
	var ae *api.Error
	if errors.As(err, &ae) {
		return serverError{ae}
	}
	return err
}
