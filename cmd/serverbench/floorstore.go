package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"
	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// A store floor is the floor server with one durable write a PUT: it
// stores the PUT's body as one row, keyed by its repo, and answers only
// once the row is on disk. No scan, no token, no history, no checksum:
// the least any durable server on a store does for a PUT, so its rate
// bounds what teammemd on that store can reach on the machine.
const (
	storeFloorSQLite   = "sqlite:"
	storeFloorPostgres = "postgres:"
)

// floorWriter writes one PUT's body durably.
type floorWriter interface {
	write(ctx context.Context, repo string, body []byte) error
	close() error
}

// openFloorWriter opens the store spec names: "" for none, sqlite:PATH
// or postgres:URL.
func openFloorWriter(ctx context.Context, spec string) (floorWriter, error) {
	switch {
	case spec == "" || spec == "1":
		return nil, nil
	case strings.HasPrefix(spec, storeFloorSQLite):
		return openSQLiteFloor(ctx, strings.TrimPrefix(spec, storeFloorSQLite))
	case strings.HasPrefix(spec, storeFloorPostgres):
		return openPostgresFloor(ctx, strings.TrimPrefix(spec, storeFloorPostgres))
	}
	return nil, fmt.Errorf("unknown store floor %q", spec)
}

// sqliteFloor commits the PUTs waiting together in one transaction on one
// connection, as teammemd's SQLite store does: WAL, synchronous=FULL, one
// fsync a batch.
type sqliteFloor struct {
	db   *sql.DB
	ins  *sql.Stmt
	reqs chan floorWrite
	done chan struct{}
}

// floorWrite is one PUT waiting for the writer.
type floorWrite struct {
	repo string
	body []byte
	err  chan error
}

// maxFloorBatch bounds the PUTs one commit takes.
const maxFloorBatch = 256

func openSQLiteFloor(ctx context.Context, path string) (*sqliteFloor, error) {
	q := url.Values{"_journal_mode": {"WAL"}, "_synchronous": {"FULL"}, "_txlock": {"immediate"}}
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	if _, err := db.ExecContext(ctx, `CREATE TABLE puts (repo TEXT NOT NULL, body BLOB NOT NULL)`); err != nil {
		return nil, errors.Join(fmt.Errorf("create table: %w", err), db.Close())
	}
	ins, err := db.PrepareContext(ctx, `INSERT INTO puts (repo, body) VALUES (?, ?)`)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("prepare insert: %w", err), db.Close())
	}
	s := &sqliteFloor{db: db, ins: ins, reqs: make(chan floorWrite), done: make(chan struct{})}
	go s.loop()
	return s, nil
}

func (s *sqliteFloor) write(ctx context.Context, repo string, body []byte) error {
	w := floorWrite{repo: repo, body: body, err: make(chan error, 1)}
	select {
	case s.reqs <- w:
	case <-ctx.Done():
		return ctx.Err()
	}
	return <-w.err
}

// loop commits each batch of waiting writes until reqs is closed.
func (s *sqliteFloor) loop() {
	defer close(s.done)
	for w := range s.reqs {
		batch := []floorWrite{w}
	more:
		for len(batch) < maxFloorBatch {
			select {
			case next, ok := <-s.reqs:
				if !ok {
					break more
				}
				batch = append(batch, next)
			default:
				break more
			}
		}
		err := s.commit(batch)
		for _, b := range batch {
			b.err <- err
		}
	}
}

func (s *sqliteFloor) commit(batch []floorWrite) error {
	ctx := context.Background()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	ins := tx.StmtContext(ctx, s.ins)
	for _, w := range batch {
		if _, err := ins.ExecContext(ctx, w.repo, w.body); err != nil {
			return errors.Join(fmt.Errorf("insert: %w", err), tx.Rollback())
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// close is called once the HTTP server has no handler left.
func (s *sqliteFloor) close() error {
	close(s.reqs)
	<-s.done
	return errors.Join(s.ins.Close(), s.db.Close())
}

// postgresFloor inserts each PUT in a transaction of its own on a pool
// made from the URL as teammemd makes its own; PostgreSQL flushes the
// commits that wait together in one WAL flush.
type postgresFloor struct{ pool *pgxpool.Pool }

func openPostgresFloor(ctx context.Context, dbURL string) (*postgresFloor, error) {
	pool, err := pgxpool.New(ctx, dbURL)
	if err != nil {
		return nil, fmt.Errorf("connect to PostgreSQL: %w", err)
	}
	if _, err := pool.Exec(ctx, `CREATE TABLE puts (repo TEXT NOT NULL, body BYTEA NOT NULL)`); err != nil {
		pool.Close()
		return nil, fmt.Errorf("create table: %w", err)
	}
	return &postgresFloor{pool: pool}, nil
}

func (p *postgresFloor) write(ctx context.Context, repo string, body []byte) error {
	if _, err := p.pool.Exec(ctx, `INSERT INTO puts (repo, body) VALUES ($1, $2)`, repo, body); err != nil {
		return fmt.Errorf("insert: %w", err)
	}
	return nil
}

func (p *postgresFloor) close() error {
	p.pool.Close()
	return nil
}
