// Package sqlite is the embedded default backend of the teammemd server: a
// store.Store and store.Tokens on one SQLite file (modernc.org/sqlite, no
// cgo). Writes are durable before they are acknowledged (WAL with
// synchronous=FULL). Concurrent writes are committed together (group
// commit), one commit at a time, led by the first waiting caller on its
// own goroutine, each write in its own savepoint so a failing write fails
// alone. Reads use a separate connection pool, and each
// repo's entry checksums are cached by version so a hash probe on an
// unchanged repo reads one row. The cache keeps keys sorted with saved
// hash states, so a write hashes the repo checksum input only from the
// first key it changes. History is pruned in short steps between writes.
// Several processes may open the same file.
package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"github.com/teammemd/teammemd/server/store"
)

// FileName is the name of the database file in the server's data directory.
const FileName = "teammemd.db"

// ErrClosed is returned by calls on a closed Store.
var ErrClosed = errors.New("store is closed")

// Options tune a Store; the zero value is ready to use.
type Options struct {
	// Logger receives operational events; nil discards them.
	Logger *slog.Logger
	// BusyTimeout is how long a statement waits for a lock held by another
	// connection or process; 0 means 5 seconds.
	BusyTimeout time.Duration
	// ReadConns caps the read pool; 0 means 4.
	ReadConns int
	// MaxBatch caps how many writes one group commit takes; 0 means 128.
	MaxBatch int
	// KeepSchema refuses a database whose schema is older than this
	// build's (store.ErrOlderSchema) instead of migrating it, for the
	// commands other than the server: a newer binary's command never
	// rewrites the tables of a database an older server runs on. A new
	// database is still created.
	KeepSchema bool
}

func (o Options) withDefaults() Options {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.BusyTimeout <= 0 {
		o.BusyTimeout = 5 * time.Second
	}
	if o.ReadConns <= 0 {
		o.ReadConns = 4
	}
	if o.MaxBatch <= 0 {
		o.MaxBatch = 128
	}
	return o
}

// Store is a teammemd store on one SQLite file. It implements store.Store
// and store.Tokens and is safe for concurrent use.
type Store struct {
	path  string
	log   *slog.Logger
	wdb   *sql.DB // one connection: the group commits and token writes
	rdb   *sql.DB // read pool
	cache *stateCache
	stmts stmtMap    // the writer's statements, on wdb
	reads *readStmts // the read pool's, on rdb

	writers   writers
	closeOnce sync.Once
	closeErr  error

	commits atomic.Int64 // group commits attempted
	writes  atomic.Int64 // writes they carried

	full *store.FullWatch // whether the last write was refused for want of room

	sqlParts // tokens, web sessions, proposals, pruning, the repo list and identity bindings
}

// sqlParts are the parts package store writes once for the SQL backends,
// embedded in Store so that their methods are Store's: their queries run
// on the read pool, their changes on the writer's connection.
type sqlParts = store.SQLParts

// Open opens the database at path, creating it and its directory (mode
// 0700) when missing and migrating its schema. A file that is not a
// teammemd database, or one written by a newer teammemd, is refused.
func Open(ctx context.Context, path string, opts Options) (*Store, error) {
	opts = opts.withDefaults()
	if err := prepareFile(path); err != nil {
		return nil, err
	}
	wdb, stmts, err := openWriter(ctx, path, opts)
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	rdb, reads, err := openReaders(ctx, path, opts)
	if err != nil {
		closeStmts(stmts)
		wdb.Close()
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	full := &store.FullWatch{}
	s := &Store{
		path:     path,
		log:      opts.Logger,
		wdb:      wdb,
		rdb:      rdb,
		cache:    newStateCache(maxCachedEntries),
		stmts:    stmts,
		reads:    reads,
		full:     full,
		sqlParts: store.NewSQLParts(sharedSQL{sqlQuerier(readPool{reads}), wdb, full}),
	}
	s.writers.maxBatch = opts.MaxBatch
	s.writers.idle.L = &s.writers.mu
	return s, nil
}

// openWriter opens the writer's one connection, migrates the schema and
// prepares the writer's statements.
func openWriter(ctx context.Context, path string, opts Options) (*sql.DB, stmtMap, error) {
	wdb, err := sql.Open("sqlite", dsn(path, opts, false))
	if err != nil {
		return nil, nil, err
	}
	wdb.SetMaxOpenConns(1)
	wdb.SetConnMaxIdleTime(0)
	if err := migrate(ctx, wdb, opts.KeepSchema, opts.Logger.With("store", path)); err != nil {
		wdb.Close()
		return nil, nil, err
	}
	if err := ensureIdentity(ctx, wdb); err != nil {
		wdb.Close()
		return nil, nil, err
	}
	stmts, err := prepareWriter(ctx, wdb)
	if err != nil {
		wdb.Close()
		return nil, nil, err
	}
	return wdb, stmts, nil
}

// openReaders opens the read pool and prepares the statements its
// transactions run.
func openReaders(ctx context.Context, path string, opts Options) (*sql.DB, *readStmts, error) {
	rdb, err := sql.Open("sqlite", dsn(path, opts, true))
	if err != nil {
		return nil, nil, err
	}
	rdb.SetMaxOpenConns(opts.ReadConns)
	rdb.SetMaxIdleConns(opts.ReadConns)
	reads, err := prepareReads(ctx, rdb)
	if err != nil {
		rdb.Close()
		return nil, nil, err
	}
	return rdb, reads, nil
}

// Close waits for the commit under way, and closes the database. Writes
// and purges not yet taken fail with ErrClosed.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		s.closeWriters()
		s.closeErr = errors.Join(closeStmts(s.stmts), s.reads.close(), s.rdb.Close(), s.wdb.Close())
		if s.closeErr != nil {
			s.closeErr = fmt.Errorf("close database %s: %w", s.path, s.closeErr)
		}
	})
	return s.closeErr
}

// readCacheKiB is the page cache of each read connection. A read
// connection drops its whole cache at the first read after any commit of
// another connection (the rule of a write-ahead log reader), and freeing
// each page costs a system call in this SQLite build's allocator: with
// SQLite's default 2 MiB, the first read after a commit spent 3 ms, and
// up to 36 ms while another process's fsync was under way, freeing it.
// Reads between commits are served from the file system's cache instead.
const readCacheKiB = 64

// dsn builds the connection string. Writers take the write lock when a
// transaction begins (BEGIN IMMEDIATE) and overwrite every byte they free
// with zeros (secure_delete), so content replaced, pruned or purged does
// not linger in free space. The writer reads the file with read calls, not
// a memory map: a disk's read error is then an error of the write, not a
// fault that stops the server. Readers are query-only.
func dsn(path string, opts Options, readOnly bool) string {
	q := url.Values{}
	q.Set("_busy_timeout", fmt.Sprint(opts.BusyTimeout.Milliseconds()))
	q.Set("_foreign_keys", "1")
	if readOnly {
		q.Set("_query_only", "1")
		q.Add("_pragma", fmt.Sprintf("cache_size(-%d)", readCacheKiB))
	} else {
		q.Set("_journal_mode", "WAL")
		q.Set("_txlock", "immediate")
		q.Add("_pragma", "secure_delete(1)")
	}
	q.Set("_synchronous", "FULL")
	return fileURI(path, q.Encode())
}

// fileURI is the connection string of the database file at path with the
// encoded query query.
func fileURI(path, query string) string {
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + query
}

// sqliteHeader starts every SQLite database file.
var sqliteHeader = []byte("SQLite format 3\x00")

// prepareFile creates the directory (0700) and an empty file (0600) when
// missing, so SQLite's own files inherit owner-only modes, and refuses an
// existing file that is not an SQLite database.
func prepareFile(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("create database directory: %w", err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("open database %s: %w", path, err)
	}
	defer f.Close()
	head := make([]byte, len(sqliteHeader))
	n, err := io.ReadFull(f, head)
	switch {
	case n == 0 && (err == io.EOF || errors.Is(err, fs.ErrNotExist)):
		return nil // new or empty file
	case err != nil && err != io.ErrUnexpectedEOF:
		return fmt.Errorf("read database %s: %w", path, err)
	case !bytes.Equal(head[:n], sqliteHeader):
		return fmt.Errorf("open database %s: not a teammemd database (not an SQLite file)", path)
	}
	return nil
}
