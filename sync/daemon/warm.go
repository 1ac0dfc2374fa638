package daemon

import (
	"context"
	"sync"

	memsync "github.com/teammemd/teammemd/sync"
)

// Warmer is an Engine that reads ahead the files its watcher names before
// their batch is due, so that the push the batch starts finds them read,
// hashed and scanned (memsync.Engine.Warm).
type Warmer interface {
	Warm(ctx context.Context, keys []string)
}

var _ Warmer = (*memsync.Engine)(nil)

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
