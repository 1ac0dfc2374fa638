package postgres

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/teammemd/teammemd/server/wake"
)

// Waker defaults and bounds.
const (
	// DefaultCheckEvery is how often a Waker compares the versions of the
	// repos that have waiters with the ones it last saw.
	DefaultCheckEvery = 2 * time.Second
	// checkTimeout bounds one check; a check that fails ends the connection.
	checkTimeout = 10 * time.Second
	// The delay before reconnecting doubles from minRetry to maxRetry.
	minRetry = 100 * time.Millisecond
	maxRetry = 5 * time.Second
	// ListenerName is the application_name of a Waker's connection, as
	// pg_stat_activity shows it.
	ListenerName = "teammemd change listener"
)

// WakerOptions tune a Waker; the zero value is ready to use.
type WakerOptions struct {
	// Logger receives connection events; nil discards them.
	Logger *slog.Logger
	// CheckEvery is how often the waker checks the versions of the repos
	// that have waiters, so a lost notification delays a wake-up by at most
	// about this long; 0 means DefaultCheckEvery.
	CheckEvery time.Duration
}

// Waker wakes this replica's change waits for the writes any replica
// commits: it LISTENs on a connection of its own for the notification
// the Store sends after each write's commit. It reconnects after losing the connection,
// and it checks the versions of the repos that have waiters on connecting
// and every CheckEvery, waking those that moved since it last looked, so a
// notification lost to a dropped connection delays a wake-up, never loses
// it. It implements server.Waker; Ping reports whether it is listening.
type Waker struct {
	*wake.Broker
	cfg        *pgx.ConnConfig
	channel    string
	redacted   string
	log        *slog.Logger
	checkEvery time.Duration

	up  atomic.Bool
	pid atomic.Uint32 // backend process of the listening connection

	// seen is each waited-on repo's version as of the last check or
	// notification; only Run's goroutine uses it.
	seen map[string]int64

	// beforeConnect, when set, is called before each connection attempt;
	// tests use it to hold the waker disconnected.
	beforeConnect func(ctx context.Context)
	// afterCheck, when set, is called after each check; tests use it to
	// count checks.
	afterCheck func()
}

// NewWaker returns a Waker on the store's database; Run makes it listen.
func (s *Store) NewWaker(opts WakerOptions) *Waker {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.CheckEvery <= 0 {
		opts.CheckEvery = DefaultCheckEvery
	}
	cfg := s.cfg.ConnConfig.Copy()
	cfg.RuntimeParams["application_name"] = ListenerName
	return &Waker{
		Broker:     wake.NewBroker(),
		cfg:        cfg,
		channel:    s.channel,
		redacted:   s.redacted,
		log:        opts.Logger,
		checkEvery: opts.CheckEvery,
		seen:       map[string]int64{},
	}
}

// Ping returns nil while the waker listens, an error otherwise.
func (w *Waker) Ping(context.Context) error {
	if !w.up.Load() {
		return errors.New("the change listener is not connected to the database")
	}
	return nil
}

// Run listens until ctx is done, reconnecting whenever the connection is
// lost, and returns nil then.
func (w *Waker) Run(ctx context.Context) error {
	delay := minRetry
	for {
		connected, err := w.session(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if connected {
			delay = minRetry
		}
		w.log.Warn("change listener disconnected; reconnecting", "store", w.redacted, "err", err,
			// In milliseconds, as the client's retries log it (memsync.RetryInAttr).
			"retryInMs", delay.Milliseconds())
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(delay):
		}
		delay = min(2*delay, maxRetry)
	}
}

// session connects, listens and wakes waits until the connection fails or
// ctx is done. It reports whether it got as far as listening.
func (w *Waker) session(ctx context.Context) (bool, error) {
	if w.beforeConnect != nil {
		w.beforeConnect(ctx)
	}
	conn, err := pgx.ConnectConfig(ctx, w.cfg)
	if err != nil {
		return false, fmt.Errorf("connect: %w", err)
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
		defer cancel()
		conn.Close(cctx)
	}()
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{w.channel}.Sanitize()); err != nil {
		return false, fmt.Errorf("listen: %w", err)
	}
	w.pid.Store(conn.PgConn().PID())
	w.up.Store(true)
	defer w.up.Store(false)
	w.log.Info("change listener connected", "store", w.redacted)
	return true, w.listen(ctx, conn)
}

// listen wakes waits for each notification, and checks the waited-on
// repos at once (for what was committed while not listening) and then
// every checkEvery, until the connection fails or ctx is done.
func (w *Waker) listen(ctx context.Context, conn *pgx.Conn) error {
	for first := true; ; first = false {
		if err := w.check(ctx, conn, first); err != nil {
			return err
		}
		if w.afterCheck != nil {
			w.afterCheck()
		}
		next := time.Now().Add(w.checkEvery)
		for time.Now().Before(next) {
			wctx, cancel := context.WithDeadline(ctx, next)
			n, err := conn.WaitForNotification(wctx)
			cancel()
			switch {
			case err == nil:
				w.notified(n.Payload)
			case ctx.Err() != nil:
				return ctx.Err()
			case !pgconn.Timeout(err):
				return err
			}
		}
	}
}

// notified wakes the waits on the repo a notification names.
func (w *Waker) notified(payload string) {
	version, slug, err := parsePayload(payload)
	if err != nil {
		w.log.Warn("ignoring a change notification", "err", err)
		return
	}
	w.Publish(slug)
	// Every wait on slug has just been woken, and any later one reads at
	// least this version: a check need not wake them again for it.
	w.seen[slug] = max(w.seen[slug], version)
}

// check reads the versions of the repos that have waiters and wakes those
// whose version differs from the one last seen. The first check after
// connecting also wakes the repos it has not looked at before: their waits
// may have begun while nothing listened. Later, such a repo's waits began
// while the waker listened, so every change since reached it as a
// notification, and the check only notes the repo's version: waking 10,000
// waits of a repo each time it gains its first waiter would cost them all a
// turn for nothing.
func (w *Waker) check(ctx context.Context, conn *pgx.Conn, first bool) error {
	repos := w.Repos()
	current := make(map[string]int64, len(repos))
	if len(repos) > 0 {
		cctx, cancel := context.WithTimeout(ctx, checkTimeout)
		defer cancel()
		rows, err := conn.Query(cctx, "SELECT slug, version FROM repos WHERE slug = ANY($1)", repos)
		if err != nil {
			return fmt.Errorf("check versions: %w", err)
		}
		for rows.Next() {
			var slug string
			var version int64
			if err := rows.Scan(&slug, &version); err != nil {
				rows.Close()
				return fmt.Errorf("check versions: %w", err)
			}
			current[slug] = version
		}
		if err := rows.Err(); err != nil {
			return fmt.Errorf("check versions: %w", err)
		}
	}
	for _, repo := range repos {
		if seen, ok := w.seen[repo]; (ok && seen != current[repo]) || (!ok && first) {
			w.Publish(repo)
		}
	}
	w.seen = current
	for _, repo := range repos {
		w.seen[repo] = current[repo]
	}
	return nil
}
