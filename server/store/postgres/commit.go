package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/teammemd/teammemd/server/store"
)

// Group commit bounds.
const (
	// maxBatch caps how many writes to one repo one transaction takes.
	maxBatch = 128
	// writeTimeout bounds a batch's transaction, which runs on after its
	// callers are gone: once a write is taken, Apply returns its real
	// outcome.
	writeTimeout = 30 * time.Second
)

// writeReq is one Apply waiting for its batch.
type writeReq struct {
	ctx  context.Context
	w    store.Write
	res  chan writeRes // buffered: the leader never blocks on it
	lead chan struct{} // buffered: the handoff of the repo's lead
}

type writeRes struct {
	r   store.Result
	err error
}

// repoQueue holds the writes to one repo waiting while a batch of earlier
// ones commits.
type repoQueue struct {
	waiting []*writeReq
}

// committer commits concurrent writes to a repo together: the first write
// leads and commits, in one transaction, itself and every write to the repo
// that arrived while the previous batch committed (group commit). Writes to
// different repos commit independently.
type committer struct {
	mu     sync.Mutex
	queues map[string]*repoQueue
	// beforeBatch, when set, is called by a leader before it takes its
	// batch; tests use it to gather writes behind it.
	beforeBatch func(repo string)
}

// Apply implements store.Store. Concurrent writes to one repo through this
// store commit together in one transaction holding the repo's row lock,
// each checked (If-Match, MaxEntries) against the state the writes before
// it leave, so writes to a repo from any replica run one after the other. A
// ctx done before the write is taken into a batch fails it with nothing
// written; once taken, Apply returns its real outcome, a store.ErrFull
// when the database's disk had no room for it.
func (s *Store) Apply(ctx context.Context, w store.Write) (_ store.Result, err error) {
	defer func() { err = s.wrote(err) }()
	if w.Repo == "" {
		return store.Result{}, errors.New("apply: empty repo")
	}
	if w.Time.IsZero() {
		w.Time = time.Now()
	}
	if err := ctx.Err(); err != nil {
		return store.Result{}, err
	}
	req := &writeReq{ctx: ctx, w: w, res: make(chan writeRes, 1), lead: make(chan struct{}, 1)}
	if !s.enqueue(req) {
		if res, done := s.awaitTurn(req); done {
			return res.r, res.err
		}
	}
	return s.leadBatch(req)
}

// enqueue makes req the leader of its repo, returning true, or queues it
// behind the batch in progress.
func (s *Store) enqueue(req *writeReq) bool {
	s.commit.mu.Lock()
	defer s.commit.mu.Unlock()
	if s.commit.queues == nil {
		s.commit.queues = map[string]*repoQueue{}
	}
	q := s.commit.queues[req.w.Repo]
	if q == nil {
		s.commit.queues[req.w.Repo] = &repoQueue{}
		return true
	}
	q.waiting = append(q.waiting, req)
	return false
}

// awaitTurn waits until a leader answers req (done) or hands req the lead.
// A ctx done while req still waits takes it out of the queue.
func (s *Store) awaitTurn(req *writeReq) (writeRes, bool) {
	select {
	case res := <-req.res:
		return res, true
	case <-req.lead:
		return writeRes{}, false
	case <-req.ctx.Done():
	}
	if s.dequeue(req) {
		return writeRes{err: req.ctx.Err()}, true
	}
	// A leader has taken req, or handed it the lead: see it through.
	select {
	case res := <-req.res:
		return res, true
	case <-req.lead:
		return writeRes{}, false
	}
}

// dequeue takes req out of its repo's queue, reporting whether it was there.
func (s *Store) dequeue(req *writeReq) bool {
	s.commit.mu.Lock()
	defer s.commit.mu.Unlock()
	q := s.commit.queues[req.w.Repo]
	if q == nil {
		return false // taken, and the queue emptied since
	}
	for i, r := range q.waiting {
		if r == req {
			q.waiting = append(q.waiting[:i], q.waiting[i+1:]...)
			return true
		}
	}
	return false
}

// leadBatch commits req and the writes waiting behind it, answers them,
// hands the lead to the next waiting write, and returns req's outcome.
func (s *Store) leadBatch(req *writeReq) (store.Result, error) {
	repo := req.w.Repo
	if s.commit.beforeBatch != nil {
		s.commit.beforeBatch(repo)
	}
	s.commit.mu.Lock()
	q := s.commit.queues[repo]
	n := min(len(q.waiting), maxBatch-1)
	batch := append([]*writeReq{req}, q.waiting[:n]...)
	q.waiting = q.waiting[n:]
	s.commit.mu.Unlock()

	results := s.commitBatch(repo, batch)
	for i, r := range batch[1:] {
		r.res <- results[i+1]
	}
	s.commit.mu.Lock()
	if len(q.waiting) > 0 {
		next := q.waiting[0]
		q.waiting = q.waiting[1:]
		next.lead <- struct{}{}
	} else {
		delete(s.commit.queues, repo)
	}
	s.commit.mu.Unlock()
	return results[0].r, results[0].err
}

// commitBatch applies the writes of batch, all to repo, in one transaction
// and returns each one's outcome. A write that fails (a precondition, too
// many entries) fails alone; a transaction that fails fails them all.
func (s *Store) commitBatch(repo string, batch []*writeReq) []writeRes {
	results := make([]writeRes, len(batch))
	ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
	defer cancel()
	if err := s.applyBatch(ctx, repo, batch, results); err != nil {
		if !errors.Is(fullError(err), store.ErrFull) { // else each write's caller reports it
			s.log.Error("write failed", "repo", repo, "writes", len(batch), "err", err)
		}
		for i := range results {
			results[i] = writeRes{err: err}
		}
	}
	return results
}

// applyBatch runs the batch's transaction, filling results. Its error fails
// every write. When this Store holds the keys of the repo as it last wrote
// it, and no write of the batch is to a personal lane, the transaction
// takes one round trip (see applyCached); else, or when the repo changed
// since, two: BEGIN with the repo's row lock, then the writes with the
// COMMIT. A write that fails in the last round trip makes PostgreSQL skip
// the rest, COMMIT included, and the transaction is rolled back.
func (s *Store) applyBatch(ctx context.Context, repo string, batch []*writeReq, results []writeRes) error {
	if cached := s.keys.latest(repo); cached != nil && !anyDecides(batch) && !slices.ContainsFunc(batch, func(r *writeReq) bool { return r.w.Lane != nil }) {
		done, err := s.applyCached(ctx, cached, batch, results)
		if err != nil || done {
			return err
		}
		clear(results)
	}
	return s.applyLocked(ctx, repo, batch, results)
}

// applyCached runs the batch's transaction in one round trip, planned on
// cached, the repo's state as this Store last wrote it: BEGIN, the repo's
// row lock, a guard that fails the transaction unless the locked row is
// still at cached's id, version, checksum and compaction mark (as
// keyCache.get checks), the writes and the COMMIT. It reports false, with
// nothing written, when the guard failed or when no write changes
// anything (the answers then come from the locked state).
func (s *Store) applyCached(ctx context.Context, cached *repoState, batch []*writeReq, results []writeRes) (bool, error) {
	b := &pgx.Batch{}
	b.Queue("BEGIN")
	b.Queue(lockRepoByID, cached.id)
	b.Queue(guardRepo, cached.id, cached.version, cached.checksum, cached.compactedThrough)
	cur, err := planBatch(b, cached, batch, results, batchChecks{})
	if err != nil || cur == cached {
		return false, err
	}
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return false, fmt.Errorf("begin write: %w", err)
	}
	defer conn.Release()
	committed := false
	defer func() {
		if !committed {
			_, _ = conn.Exec(context.WithoutCancel(ctx), "ROLLBACK")
		}
	}()
	queueCommit(b, cur, &committed)
	if err := conn.SendBatch(ctx, b).Close(); err != nil {
		if pgErr := (*pgconn.PgError)(nil); errors.As(err, &pgErr) && pgErr.Code == codeDivisionByZero {
			return false, nil // the repo changed since: the guard failed
		}
		return false, fmt.Errorf("apply write to %s: %w", cached.slug, err)
	}
	s.keys.put(cur)
	s.notes.add(cur.slug, cur.version)
	return true, nil
}

// applyLocked runs the batch's transaction in two round trips: BEGIN with
// the repo's row lock and the read of its keys, then the writes with the
// COMMIT.
func (s *Store) applyLocked(ctx context.Context, repo string, batch []*writeReq, results []writeRes) error {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("begin write: %w", err)
	}
	// A connection released inside a transaction, if the ROLLBACK below
	// failed, is closed by the pool, never reused.
	defer conn.Release()
	committed := false
	defer func() {
		if !committed {
			_, _ = conn.Exec(context.WithoutCancel(ctx), "ROLLBACK")
		}
	}()
	cur, err := s.beginLocked(ctx, conn, repo)
	if err != nil {
		return err
	}
	lane, err := beginLane(ctx, conn, cur, batch)
	if err != nil {
		return err
	}
	decided, err := lockDecisions(ctx, conn, batch)
	if err != nil {
		return err
	}
	b := &pgx.Batch{}
	start := cur
	if cur, err = planBatch(b, cur, batch, results, batchChecks{lane, decided}); err != nil || cur == start {
		return err // nothing changed: roll back, even a new repo's row
	}
	queueCommit(b, cur, &committed)
	if err := conn.SendBatch(ctx, b).Close(); err != nil {
		return fmt.Errorf("apply write to %s: %w", repo, err)
	}
	s.keys.put(cur)
	s.notes.add(cur.slug, cur.version)
	return nil
}

// batchChecks is what a batch's transaction read and locked to check its
// writes to personal lanes and its approvals: none for a batch of plain
// writes.
type batchChecks struct {
	lane    *laneBatch
	decided decisions
}

// planBatch checks each write of batch against the state the writes before
// it leave, from cur on, fills its result and queues its changes on b. It
// returns the state the last write leaves: cur when none changes anything.
func planBatch(b *pgx.Batch, cur *repoState, batch []*writeReq, results []writeRes, c batchChecks) (*repoState, error) {
	for i, req := range batch {
		if err := req.ctx.Err(); err != nil {
			results[i].err = err
			continue
		}
		p, err := store.PlanWrite(cur, req.w)
		var use store.Usage
		if err == nil && c.lane != nil {
			use, err = c.lane.check(p, req.w)
		}
		if err == nil && len(p.Changed) > 0 {
			err = c.decided.check(req.w)
		}
		if err != nil || len(p.Changed) == 0 {
			results[i] = writeRes{r: cur.result(nil), err: err}
			continue
		}
		if cur, err = queueWrite(b, cur, p, req.w); err != nil {
			return nil, err
		}
		if c.lane != nil {
			c.lane.queue(b, cur, p, req.w, use)
		}
		c.decided.queue(b, cur, req.w)
		results[i] = writeRes{r: cur.result(p.Changed)}
	}
	return cur, nil
}

// queueCommit queues the repo row's update to next and the COMMIT, which
// sets committed once it is answered.
func queueCommit(b *pgx.Batch, next *repoState, committed *bool) {
	b.Queue(updateRepo, next.version, next.lastModified.UnixNano(), next.checksum, next.compactedThrough, next.id)
	b.Queue("COMMIT").Exec(func(tag pgconn.CommandTag) error {
		*committed = true // the transaction is over, whatever its tag
		if tag.String() != "COMMIT" {
			return fmt.Errorf("the transaction was rolled back (%s)", tag)
		}
		return nil
	})
}
