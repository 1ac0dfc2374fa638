package postgres

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// notifyTimeout bounds one round of change notifications.
const notifyTimeout = 10 * time.Second

// notifier sends the change notification of each committed write, after
// its commit, from one goroutine. A NOTIFY in the write's own transaction
// would hold PostgreSQL's database-wide notification lock from the commit's
// start until its WAL flush, so the writes to different repos, which
// could otherwise flush together, would commit one flush after the other.
// Sent after the commit, each repo's newest version goes out once a round,
// every write's of the round in one implicit transaction. A notification
// lost to a crash between the commit and its round, or to a failed round,
// delays a wake-up on the other replicas by at most their Waker's
// CheckEvery; this replica's own waits are woken by the server directly.
type notifier struct {
	pool    *pgxpool.Pool
	channel string
	log     *slog.Logger

	mu      sync.Mutex
	pending map[string]int64 // slug -> the newest version committed
	sending int              // rounds taken from pending and not yet sent
	kick    chan struct{}    // buffered: a round is due
	stop    chan struct{}
	stopped chan struct{}
}

func newNotifier(pool *pgxpool.Pool, channel string, log *slog.Logger) *notifier {
	n := &notifier{pool: pool, channel: channel, log: log, pending: map[string]int64{},
		kick: make(chan struct{}, 1), stop: make(chan struct{}), stopped: make(chan struct{})}
	go n.run()
	return n
}

// add notes that version of slug is committed.
func (n *notifier) add(slug string, version int64) {
	n.mu.Lock()
	n.pending[slug] = max(n.pending[slug], version)
	n.mu.Unlock()
	select {
	case n.kick <- struct{}{}:
	default:
	}
}

// run sends rounds until close, then a last one.
func (n *notifier) run() {
	defer close(n.stopped)
	for {
		select {
		case <-n.kick:
			n.round()
		case <-n.stop:
			n.round()
			return
		}
	}
}

// round sends the pending notifications.
func (n *notifier) round() {
	n.mu.Lock()
	pending := n.pending
	n.pending = map[string]int64{}
	n.sending++
	n.mu.Unlock()
	defer func() {
		n.mu.Lock()
		n.sending--
		n.mu.Unlock()
	}()
	if len(pending) == 0 {
		return
	}
	b := &pgx.Batch{}
	for slug, version := range pending {
		b.Queue(notifyChange, n.channel, notifyPayload(version, slug))
	}
	ctx, cancel := context.WithTimeout(context.Background(), notifyTimeout)
	defer cancel()
	if err := n.pool.SendBatch(ctx, b).Close(); err != nil {
		n.log.Warn("change notifications not sent; other replicas see the writes at their next check",
			"repos", len(pending), "err", err)
	}
}

// close sends what is pending and ends the goroutine.
func (n *notifier) close() {
	close(n.stop)
	<-n.stopped
}

// idle reports whether every notification noted so far is sent (or its
// round failed).
func (n *notifier) idle() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return len(n.pending) == 0 && n.sending == 0
}
