package sqlite

import (
	"context"
	"fmt"
	"time"

	"github.com/teammemd/teammemd/server/store"
)

// warmSubject is the subject of the write a warm-up plays and rolls back;
// no history row of it is ever committed.
const warmSubject = "teammemd-warm-up"

// WarmWrite readies the writer for a write to repo that a client has
// announced (PROTOCOL.md section 21): it plays a one-key write to repo on
// the writer's connection and rolls it back, so that the statements, the
// b-tree pages and the code the write will need are in memory when it
// comes. A server that idled for a few seconds otherwise meets its next
// write with all of them cold. It runs only when no write waits or
// commits, and gives way to the first write that comes: that write's
// arrival interrupts the statement under way. Nothing it does is ever
// committed. It reports whether it ran; a repo never written, a closed
// store or a write under way skip it.
func (s *Store) WarmWrite(ctx context.Context, repo string) bool {
	ran, err := s.warm(ctx, repo)
	if err != nil && ctx.Err() == nil {
		s.log.Debug("write warm-up", "repo", repo, "err", err)
	}
	return ran
}

// warm runs a warm-up when the writer is free, reporting whether it ran
// and what ended it: nil when it played its write through, an error when
// it failed or a request came and cut it short.
func (s *Store) warm(ctx context.Context, repo string) (bool, error) {
	q := &s.writers
	q.mu.Lock()
	if q.closed || q.leading || len(q.pending) > 0 {
		q.mu.Unlock()
		return false, nil
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	q.leading, q.cutWarm = true, cancel
	q.mu.Unlock()
	err := s.warmWrite(wctx, repo)
	q.mu.Lock()
	q.cutWarm = nil
	q.handOn()
	q.mu.Unlock()
	return true, err
}

// warmWrite plays a write of one key of repo, the one in the middle of
// its keys, in a transaction it rolls back. A cancelled ctx interrupts
// it.
func (s *Store) warmWrite(ctx context.Context, repo string) error {
	tx, err := s.wdb.BeginTx(context.Background(), nil) // ctx cuts the statements; the rollback always runs
	if err != nil {
		return fmt.Errorf("begin warm-up: %w", err)
	}
	defer tx.Rollback()
	wtx := newStmtTx(tx, s.stmts)
	cur, err := s.loadState(ctx, wtx, map[string]*repoState{}, repo)
	if err != nil || cur.id == 0 || len(cur.lines) == 0 {
		return err
	}
	key := cur.lines[len(cur.lines)/2].key
	w := store.Write{Repo: repo, Entries: map[string]string{key: warmSubject}, Subject: warmSubject, Time: time.Now()}
	plan, err := store.PlanWrite(cur, w)
	if err != nil || len(plan.Changed) == 0 {
		return err
	}
	_, err = s.writePlan(ctx, wtx, cur, plan, w)
	return err
}
