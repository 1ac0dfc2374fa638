package postgres

import (
	"context"
	"errors"
	"fmt"
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
// written; once taken, Apply returns its real outcome.
func (s *Store) Apply(ctx context.Context, w store.Write) (store.Result, error) {
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
		s.log.Error("write failed", "repo", repo, "writes", len(batch), "err", err)
		for i := range results {
			results[i] = writeRes{err: err}
		}
	}
	return results
}

// applyBatch runs the batch's transaction, filling results. Its error fails
// every write. The transaction takes two round trips: BEGIN with the repo's
// row lock, then the writes with the COMMIT; a write that fails in the
// second makes PostgreSQL skip the rest, COMMIT included, and the
// transaction is rolled back.
func (s *Store) applyBatch(ctx context.Context, repo string, batch []*writeReq, results []writeRes) error {
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
	b := &pgx.Batch{}
	start := cur
	for i, req := range batch {
		if err := req.ctx.Err(); err != nil {
			results[i].err = err
			continue
		}
		p, err := store.PlanWrite(cur, req.w)
		var use store.Usage
		if err == nil && lane != nil {
			use, err = lane.check(p, req.w)
		}
		if err != nil || len(p.Changed) == 0 {
			results[i] = writeRes{r: cur.result(nil), err: err}
			continue
		}
		cur = queueWrite(b, cur, p, req.w)
		if lane != nil {
			lane.queue(b, cur, p, req.w, use)
		}
		results[i] = writeRes{r: cur.result(p.Changed)}
	}
	if cur == start {
		return nil // nothing changed: roll back, even a new repo's row
	}
	b.Queue(updateRepo, cur.version, cur.lastModified.UnixNano(), cur.checksum, cur.compactedThrough, cur.id)
	b.Queue("COMMIT").Exec(func(tag pgconn.CommandTag) error {
		committed = true // the transaction is over, whatever its tag
		if tag.String() != "COMMIT" {
			return fmt.Errorf("the transaction was rolled back (%s)", tag)
		}
		return nil
	})
	if err := conn.SendBatch(ctx, b).Close(); err != nil {
		return fmt.Errorf("apply write to %s: %w", repo, err)
	}
	s.keys.put(cur)
	s.notes.add(cur.slug, cur.version)
	return nil
}
