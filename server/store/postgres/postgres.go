// Package postgres is the shared-database backend of the teammemd server: a
// store.Store and store.Tokens on PostgreSQL (pgx, pgxpool), for several
// stateless server replicas on one database. It keeps the SQLite store's
// semantics exactly (checksums, versions, tombstones, history, pruning,
// tokens) and passes the same conformance suite. Writes to a repo commit in
// transactions that hold the repo's row lock, so they are serialised across
// replicas; concurrent writes to a repo through one Store share a
// transaction (group commit), each checked against the state the ones
// before it leave. After each commit the Store sends a NOTIFY, outside the
// write's transaction, which the Waker of every replica turns into woken
// change waits. The schema is
// embedded, versioned and migrated at Open under an advisory lock.
package postgres

import (
	"context"
	"fmt"
	"log/slog"
	"sync"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/teammemd/teammemd/server/store"
)

// Options tune a Store; the zero value is ready to use.
type Options struct {
	// Logger receives operational events; nil discards them.
	Logger *slog.Logger
	// KeepSchema refuses a database whose schema is older than this
	// build's (store.ErrOlderSchema) instead of migrating it, for the
	// commands other than the server: a newer binary's command never
	// changes the schema under the replicas of an older one. A new
	// database is still created.
	KeepSchema bool
}

// Store is a teammemd store on a PostgreSQL database. It implements
// store.Store and store.Tokens and is safe for concurrent use by many
// goroutines and many processes.
type Store struct {
	pool      *pgxpool.Pool
	cfg       *pgxpool.Config
	redacted  string
	log       *slog.Logger
	channel   string // the NOTIFY channel of this database and schema
	commit    committer
	notes     *notifier // the change notifications of committed writes
	keys      keyCache  // the keys of the repos last written
	closeOnce sync.Once
	full      *store.FullWatch // whether the last write was refused for want of room

	sqlParts // tokens, web sessions, proposals, pruning, the repo list and identity bindings
}

// sqlParts are the parts package store writes once for the SQL backends,
// embedded in Store so that their methods are Store's.
type sqlParts = store.SQLParts

// Open connects to the database at connString (a postgres:// URL; pgxpool's
// pool_max_conns and the other pool parameters apply) and migrates its schema
// to SchemaVersion. Errors never hold the password.
func Open(ctx context.Context, connString string, opts Options) (*Store, error) {
	redacted := Redact(connString)
	if !IsURL(connString) {
		return nil, fmt.Errorf("open database: want a postgres:// or postgresql:// URL, got %q", redacted)
	}
	cfg, err := pgxpool.ParseConfig(connString)
	if err != nil {
		return nil, RedactError(fmt.Errorf("open database %s: %w", redacted, err), connString)
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, RedactError(fmt.Errorf("open database %s: %w", redacted, err), connString)
	}
	if err := migrate(ctx, pool, opts.KeepSchema, opts.Logger.With("store", redacted)); err != nil {
		pool.Close()
		return nil, RedactError(fmt.Errorf("open database %s: %w", redacted, err), connString)
	}
	var schema string
	if err := pool.QueryRow(ctx, "SELECT current_schema()").Scan(&schema); err != nil {
		pool.Close()
		return nil, RedactError(fmt.Errorf("open database %s: read schema: %w", redacted, err), connString)
	}
	channel := channelName(schema)
	full := &store.FullWatch{}
	return &Store{pool: pool, cfg: cfg, redacted: redacted, log: opts.Logger, channel: channel,
		notes: newNotifier(pool, channel, opts.Logger), full: full,
		sqlParts: store.NewSQLParts(poolSQL{pgQuerier(pool), pool, full})}, nil
}

// String returns the connection string with its password redacted.
func (s *Store) String() string { return s.redacted }

// Ping checks that the database answers.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.pool.Ping(ctx); err != nil {
		return fmt.Errorf("ping database %s: %w", s.redacted, err)
	}
	return nil
}

// Close closes every connection of the pool, waiting for those in use.
func (s *Store) Close() error {
	s.closeOnce.Do(s.notes.close)
	s.pool.Close()
	return nil
}
