package sqlite

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/teammemd/teammemd/server/store"
)

// writeReq is one Apply waiting for the writer goroutine.
type writeReq struct {
	ctx context.Context
	w   store.Write
	res chan writeRes // buffered: the writer never blocks on it
}

type writeRes struct {
	r   store.Result
	err error
}

// Apply implements store.Store. Concurrent calls are committed together by
// the writer goroutine; each returns only once its write is durable. A ctx
// done before the writer takes the write, or before its turn in the group
// commit comes, fails it with ctx's error and nothing written; once the
// write has begun, Apply returns its real outcome.
func (s *Store) Apply(ctx context.Context, w store.Write) (store.Result, error) {
	if w.Repo == "" {
		return store.Result{}, errors.New("apply: empty repo")
	}
	if w.Time.IsZero() {
		w.Time = time.Now()
	}
	req := &writeReq{ctx: ctx, w: w, res: make(chan writeRes, 1)}
	select {
	case s.queue <- req:
	case <-ctx.Done():
		return store.Result{}, ctx.Err()
	case <-s.closing:
		return store.Result{}, ErrClosed
	}
	// The writer has taken the write: it answers within one group commit,
	// with ctx's error only if it skipped the write because ctx was done
	// before the write began. Waiting here keeps the answer true: a write
	// that commits is never reported as failed.
	res := <-req.res
	return res.r, res.err
}

// writeLoop is the one goroutine that writes entries. It takes a write,
// gathers the writes already waiting behind it, commits them in one
// transaction and answers each; a purge it commits alone. It ends when the
// store closes.
func (s *Store) writeLoop() {
	defer close(s.writerDone)
	for {
		select {
		case <-s.closing:
			return
		case req := <-s.queue:
			s.commitBatch(s.gather(req))
		case req := <-s.purges:
			req.res <- s.commitPurge(req)
		}
	}
}

// gather returns first and every write already queued behind it, up to the
// batch cap.
func (s *Store) gather(first *writeReq) []*writeReq {
	batch := []*writeReq{first}
	for len(batch) < s.maxBatch {
		select {
		case req := <-s.queue:
			batch = append(batch, req)
		default:
			return batch
		}
	}
	return batch
}

// commitBatch applies each write in its own savepoint of one transaction,
// commits once (one fsync) and answers every caller.
func (s *Store) commitBatch(batch []*writeReq) {
	results := make([]writeRes, len(batch))
	start := time.Now()
	states, err := s.applyBatch(batch, results)
	s.commits.Add(1)
	s.writes.Add(int64(len(batch)))
	s.log.Debug("group commit", "writes", len(batch), "duration", time.Since(start))
	if err != nil {
		s.log.Error("group commit failed", "writes", len(batch), "err", err)
		for i := range results {
			if results[i].err == nil {
				results[i] = writeRes{err: err}
			}
		}
	} else {
		for _, st := range states {
			s.cache.put(st)
		}
	}
	for i, req := range batch {
		req.res <- results[i]
	}
}

// applyBatch runs the batch's transaction. It fills results for each write
// and returns the new states of the repos written, or an error that fails
// every write of the batch.
func (s *Store) applyBatch(batch []*writeReq, results []writeRes) (map[string]*repoState, error) {
	ctx := context.Background() // one caller's cancellation must not abort the others
	tx, err := s.wdb.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("begin write: %w", err)
	}
	defer tx.Rollback()
	wtx := newWriteTx(tx, s.stmts)
	states := map[string]*repoState{}
	for i, req := range batch {
		if err := req.ctx.Err(); err != nil {
			results[i].err = err
			continue
		}
		results[i], err = s.applyInSavepoint(ctx, wtx, states, req.w)
		if err != nil {
			return nil, err
		}
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("commit write: %w", err)
	}
	return states, nil
}

// applyInSavepoint applies one write. A write that fails gets its own error
// in the result and leaves nothing behind; the returned error means the
// transaction itself is broken.
func (s *Store) applyInSavepoint(ctx context.Context, tx *writeTx, states map[string]*repoState, w store.Write) (writeRes, error) {
	cur, err := s.loadState(ctx, tx, states, w.Repo)
	if err != nil {
		return writeRes{err: err}, nil
	}
	plan, err := planWrite(cur, w)
	var lane store.Usage
	if err == nil && w.Lane != nil {
		lane, err = checkLane(ctx, tx, cur, plan, w)
	}
	if err != nil || len(plan.changed) == 0 {
		return writeRes{r: cur.result(nil), err: err}, nil
	}
	if _, err := tx.ExecContext(ctx, savepoint); err != nil {
		return writeRes{}, fmt.Errorf("savepoint: %w", err)
	}
	next, err := s.writePlan(ctx, tx, cur, plan, w)
	if err == nil && w.Lane != nil {
		err = recordLane(ctx, tx, next, lane, w)
	}
	if err != nil {
		if rbErr := rollbackSavepoint(ctx, tx); rbErr != nil {
			return writeRes{}, fmt.Errorf("roll back savepoint: %w", errors.Join(err, rbErr))
		}
		return writeRes{err: fmt.Errorf("apply write to %s: %w", w.Repo, err)}, nil
	}
	if _, err := tx.ExecContext(ctx, releaseSave); err != nil {
		return writeRes{}, fmt.Errorf("release savepoint: %w", err)
	}
	states[w.Repo] = next
	return writeRes{r: next.result(plan.changed)}, nil
}

// rollbackSavepoint undoes a failed write and ends its savepoint.
func rollbackSavepoint(ctx context.Context, tx *writeTx) error {
	if _, err := tx.ExecContext(ctx, rollbackSave); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, releaseSave)
	return err
}
