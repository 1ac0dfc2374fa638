package daemon

import (
	"context"
	"sync"
	"time"

	memsync "github.com/teammemd/teammemd/sync"
	"github.com/teammemd/teammemd/watch"
)

// Warmer is an Engine that reads ahead the files its watcher names before
// their batch is due, so that the push the batch starts finds them read,
// hashed and scanned (memsync.Engine.Warm).
type Warmer interface {
	Warm(ctx context.Context, keys []string)
}

var _ Warmer = (*memsync.Engine)(nil)

// StateWarmer is an Engine that makes ahead the copy of its state the
// next run loads (memsync.Engine.WarmState).
type StateWarmer interface {
	WarmState()
}

var _ StateWarmer = (*memsync.Engine)(nil)

// WriteAnnouncer is an Engine that tells the server of a push about to
// run, so that the server hints its teammates' change waits while the
// push still reads and scans (memsync.Engine.AnnounceWrite, PROTOCOL.md
// section 21).
type WriteAnnouncer interface {
	AnnounceWrite(ctx context.Context)
}

var _ WriteAnnouncer = (*memsync.Engine)(nil)

// warmStop ends the read ahead under way, if any: once the batch is due,
// the push reads what is left itself.
type warmStop struct {
	mu     sync.Mutex
	cancel context.CancelFunc
}

// set records the cancel of the read ahead under way, nil when none is.
func (w *warmStop) set(cancel context.CancelFunc) {
	w.mu.Lock()
	w.cancel = cancel
	w.mu.Unlock()
}

// stop cancels the read ahead under way, if any.
func (w *warmStop) stop() {
	w.mu.Lock()
	if w.cancel != nil {
		w.cancel()
	}
	w.mu.Unlock()
}

// readsAhead reports eng as a Warmer when the repo of spec reads ahead: a
// team repo whose engine can.
func readsAhead(spec Spec, eng Engine) (Warmer, bool) {
	w, ok := eng.(Warmer)
	return w, ok && spec.lane() == LaneTeam
}

// readAhead hands the watcher's hints to the engine, one read ahead at a
// time, until ctx is done.
func (r *repo) readAhead(ctx context.Context, w Warmer) error {
	for {
		select {
		case <-ctx.Done():
			return nil
		case paths := <-r.watcher.Settled():
			wctx, cancel := context.WithCancel(ctx)
			r.warming.set(cancel)
			w.Warm(wctx, paths)
			r.warming.set(nil)
			cancel()
		}
	}
}

// announceFresh is how long an announcement made as a batch was about to
// be due (batchDue) stands for the batch: the batch comes
// watch.DefaultLead later unless a change moved it, and is not announced
// again.
const announceFresh = 10 * watch.DefaultLead

// batchDue readies the push of the batch of paths the watcher says is
// about to be due: it announces the push (announceWrite), so that the
// server and the teammates' daemons wake while this one still waits for
// the batch, and has the engine make the copy of the state the push
// loads (StateWarmer). Changes that are all the last pull's own writes, or
// ignored, start no push and are not announced; nor is a batch that will
// wait for a retry.
func (w *worker) batchDue(ctx context.Context, paths []string) {
	r := w.repo
	b := r.relevant(watch.Batch{Paths: paths})
	if w.waiting || len(b.Paths) == 0 || r.own.only(b) {
		return
	}
	r.announcedAt = time.Now()
	r.announceWrite(ctx)
	if sw, ok := r.eng.(StateWarmer); ok {
		sw.WarmState()
	}
}

// announceForBatch announces the push a batch starts unless batchDue did
// so for it.
func (r *repo) announceForBatch(ctx context.Context) {
	if time.Since(r.announcedAt) > announceFresh {
		r.announceWrite(ctx)
	}
}
