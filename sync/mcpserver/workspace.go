package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	memsync "github.com/teammemd/teammemd/sync"
	"github.com/teammemd/teammemd/sync/memindex"
	"github.com/teammemd/teammemd/watch"
)

// workspace is one open team directory: its notes on disk, their index,
// and a watcher that keeps the index and the resources current.
type workspace struct {
	t     Target
	s     *Server
	notes *memsync.Notes
	index *memindex.Index
}

// open opens t's team directory, once: it indexes the notes, lists them
// as resources and watches the directory until Run ends.
func (s *Server) open(t Target) (*workspace, error) {
	dir, err := filepath.Abs(t.Dir)
	if err != nil {
		return nil, fmt.Errorf("team directory: %w", err)
	}
	t.Dir = dir
	s.mu.Lock()
	defer s.mu.Unlock()
	if ws := s.spaces[dir]; ws != nil {
		return ws, nil
	}
	switch {
	case s.ctx == nil:
		return nil, errors.New("the server is not running")
	case len(s.spaces) >= maxSpaces:
		return nil, fmt.Errorf("%s: this server already has %d team directories open", t.Repo, maxSpaces)
	}
	ws := &workspace{t: t, s: s, notes: memsync.NewNotes(dir, s.opts.Scanner), index: memindex.New()}
	ch, err := ws.index.Refresh(ws.notes)
	if err != nil {
		return nil, fmt.Errorf("read the notes of %s: %w", t.Repo, err)
	}
	s.spaces[dir] = ws
	s.announce(s.ctx, ws, ch)
	ctx := s.ctx
	s.wg.Go(func() { s.watch(ctx, ws) })
	return ws, nil
}

// watch refreshes ws from the changes on disk until ctx is done.
func (s *Server) watch(ctx context.Context, ws *workspace) {
	w, err := watch.New(ws.t.Dir, s.opts.Watch)
	if err != nil {
		s.log.Warn("team directory not watched", "dir", ws.t.Dir, "err", err)
		return
	}
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	for {
		select {
		case err := <-done:
			if err != nil {
				s.log.Warn("team directory not watched", "dir", ws.t.Dir, "err", err)
			}
			return
		case b := <-w.Batches():
			s.refresh(ctx, ws, b)
		}
	}
}

// refresh reads what a watcher batch says changed.
func (s *Server) refresh(ctx context.Context, ws *workspace, b watch.Batch) {
	var ch memindex.Changes
	var err error
	if b.Rescan {
		ch, err = ws.index.Refresh(ws.notes)
	} else {
		ch, err = ws.index.RefreshKeys(ws.notes, b.Paths)
	}
	if err != nil {
		s.log.Warn("team directory not read", "dir", ws.t.Dir, "err", err)
		return
	}
	s.announce(ctx, ws, ch)
}
