package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/teammemd/teammemd/server/store"
)

// writeReq is one Apply or Purge waiting for its turn on the writer's
// connection.
type writeReq struct {
	ctx   context.Context
	w     store.Write
	purge *purgeReq     // set for a purge, which is committed alone
	res   writeRes      // the write's answer, set before done receives
	done  chan struct{} // buffered: receives once the request is answered
	lead  chan struct{} // buffered: receives when the request is to lead the next commit
}

type writeRes struct {
	r   store.Result
	err error
}

func newWriteReq(ctx context.Context) *writeReq {
	return &writeReq{ctx: ctx, done: make(chan struct{}, 1), lead: make(chan struct{}, 1)}
}

// answer sets req's result and wakes its caller.
func (req *writeReq) answer(res writeRes) {
	req.res = res
	req.done <- struct{}{}
}

// writers is the queue of the writes and purges waiting for the writer's
// connection, and who leads its next commit. One caller at a time leads:
// it takes the writes waiting, its own among them, commits them together
// and answers each, then hands the lead to the first of those that came
// in the meantime. So the writer's work runs on a caller's goroutine, and
// a write that finds no commit under way commits at once, without a
// hand-off to another goroutine and back.
type writers struct {
	mu       sync.Mutex
	pending  []*writeReq
	leading  bool      // a caller is leading, or has been handed the lead
	next     *writeReq // the pending request handed the lead, not yet leading
	closed   bool
	idle     sync.Cond // signalled when leading becomes false
	maxBatch int
	// cutWarm interrupts the write warm-up under way (WarmWrite), nil
	// when none is: a request that comes takes the writer from it.
	cutWarm context.CancelFunc
}

// Apply implements store.Store. Concurrent calls are committed together,
// one group commit at a time; each returns only once its write is durable.
// A ctx done before a commit takes the write fails it with ctx's error and
// nothing written; once a commit has taken it, Apply returns its real
// outcome, a store.ErrFull when SQLite had no room for it.
func (s *Store) Apply(ctx context.Context, w store.Write) (store.Result, error) {
	if w.Repo == "" {
		return store.Result{}, errors.New("apply: empty repo")
	}
	if w.Time.IsZero() {
		w.Time = time.Now()
	}
	req := newWriteReq(ctx)
	req.w = w
	if err := s.await(req); err != nil {
		return store.Result{}, err
	}
	return req.res.r, s.wrote(req.res.err)
}

// await queues req and returns once it is answered, leading the commits
// when its turn to lead comes. It returns ctx's error, or ErrClosed, for a
// request no commit took.
func (s *Store) await(req *writeReq) error {
	q := &s.writers
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return ErrClosed
	}
	q.pending = append(q.pending, req)
	if q.cutWarm != nil {
		q.cutWarm()
	}
	lead := !q.leading
	q.leading = true
	q.mu.Unlock()
	if !lead {
		select {
		case <-req.done:
			return nil
		case <-req.lead:
		case <-req.ctx.Done():
			if s.withdraw(req) {
				return req.ctx.Err()
			}
			select { // taken by a commit, or handed the lead at the same moment
			case <-req.done:
				return nil
			case <-req.lead:
			}
		}
	}
	s.commitNext()
	<-req.done // answered by the commit it led, or by Close
	return nil
}

// withdraw takes req, whose ctx is done, out of the queue unless a commit
// has taken it, and reports whether it did. Handed the lead, it hands it
// on.
func (s *Store) withdraw(req *writeReq) bool {
	q := &s.writers
	q.mu.Lock()
	defer q.mu.Unlock()
	i := slices.Index(q.pending, req)
	if i < 0 {
		return false
	}
	q.pending = slices.Delete(q.pending, i, i+1)
	if q.next == req {
		q.handOn()
	}
	return true
}

// handOn hands the lead to the first request waiting, or ends the lead
// when none is. q.mu is held.
func (q *writers) handOn() {
	q.next = nil
	if len(q.pending) == 0 || q.closed {
		q.leading = false
		q.idle.Broadcast()
		return
	}
	q.next = q.pending[0]
	q.next.lead <- struct{}{}
}

// take returns the next commit's requests: a purge alone, or the writes
// waiting up to the first purge and the batch cap.
func (q *writers) take() []*writeReq {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.next = nil
	n := 0
	for n < len(q.pending) && n < q.maxBatch && q.pending[n].purge == nil {
		n++
	}
	if n == 0 && len(q.pending) > 0 {
		n = 1
	}
	batch := slices.Clone(q.pending[:n])
	q.pending = slices.Delete(q.pending, 0, n)
	return batch
}

// commitNext runs one commit as its leader: it takes the requests waiting,
// commits them and answers each, then hands the lead on.
func (s *Store) commitNext() {
	batch := s.writers.take()
	switch {
	case len(batch) == 1 && batch[0].purge != nil:
		batch[0].purge.res <- s.commitPurge(batch[0].purge)
		batch[0].done <- struct{}{}
	case len(batch) > 0:
		s.commitBatch(batch)
	}
	s.writers.mu.Lock()
	s.writers.handOn()
	s.writers.mu.Unlock()
}

// closeWriters fails every request waiting with ErrClosed and waits for
// the commit under way.
func (s *Store) closeWriters() {
	q := &s.writers
	q.mu.Lock()
	defer q.mu.Unlock()
	q.closed = true
	if q.cutWarm != nil {
		q.cutWarm()
	}
	for _, req := range q.pending {
		if req.purge != nil {
			req.purge.res <- purgeRes{err: ErrClosed}
		}
		req.answer(writeRes{err: ErrClosed})
	}
	q.pending = nil
	if q.next != nil { // handed the lead, it was answered before it could take it
		q.next, q.leading = nil, false
	}
	for q.leading {
		q.idle.Wait()
	}
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
		s.logCommitError(len(batch), err)
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
		req.answer(results[i])
	}
}

// logCommitError logs the failure of a group commit of n writes, unless
// it is for want of room: each of its writes is then refused with a
// store.ErrFull, which its caller reports.
func (s *Store) logCommitError(n int, err error) {
	if !errors.Is(fullError(err), store.ErrFull) {
		s.log.Error("group commit failed", "writes", n, "err", err)
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
	wtx := newStmtTx(tx, s.stmts)
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
func (s *Store) applyInSavepoint(ctx context.Context, tx *stmtTx, states map[string]*repoState, w store.Write) (writeRes, error) {
	cur, err := s.loadState(ctx, tx, states, w.Repo)
	if err != nil {
		return writeRes{err: err}, nil
	}
	plan, err := store.PlanWrite(cur, w)
	var lane store.Usage
	if err == nil && w.Lane != nil {
		lane, err = checkLane(ctx, tx, cur, plan, w)
	}
	if err != nil || len(plan.Changed) == 0 {
		return writeRes{r: cur.result(nil), err: err}, nil
	}
	if _, err := tx.ExecContext(ctx, savepoint); err != nil {
		return writeRes{}, fmt.Errorf("savepoint: %w", err)
	}
	next, err := s.writePlan(ctx, tx, cur, plan, w)
	if err == nil && w.Lane != nil {
		err = recordLane(ctx, tx, next, lane, w)
	}
	if err == nil && w.Decide != nil {
		err = recordDecision(ctx, tx, *w.Decide, next.version)
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
	return writeRes{r: next.result(plan.Changed)}, nil
}

// recordDecision records d, at version, on its proposal while it is
// pending; else the write that lands it fails.
func recordDecision(ctx context.Context, tx *stmtTx, d store.Decision, version int64) error {
	d.Version = version
	if err := store.ValidDecision(d); err != nil {
		return err
	}
	st := store.DecideStmt(d)
	res, err := tx.ExecContext(ctx, st.SQL, st.Args...)
	if err != nil {
		return fmt.Errorf("decide proposal %d: %w", d.ID, err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 1 {
		return err
	}
	var state string
	err = tx.QueryRowContext(ctx, store.SelectProposalState, d.ID).Scan(&state)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("read proposal %d: %w", d.ID, err)
	}
	return store.DecidedError(d.ID, state)
}

// rollbackSavepoint undoes a failed write and ends its savepoint.
func rollbackSavepoint(ctx context.Context, tx *stmtTx) error {
	if _, err := tx.ExecContext(ctx, rollbackSave); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, releaseSave)
	return err
}
