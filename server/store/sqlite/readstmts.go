package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
)

// Statements of the reads of values.
const (
	selectValues   = "SELECT key, checksum, value, deleted_at FROM entries WHERE repo_id = ?"
	selectValuesOf = `SELECT key, checksum, value FROM entries
		WHERE repo_id = ? AND checksum IS NOT NULL AND key IN (SELECT value FROM json_each(?))`
)

// maxReadStmts bounds the statements the read pool keeps prepared; a
// query past it runs as is, compiled on each call.
const maxReadStmts = 64

// readQueries are the statements a read transaction runs, prepared when
// the store opens: a transaction holds its connection, so it never waits
// for another to prepare one.
var readQueries = []string{selectRepo, selectSums, selectValues, selectValuesOf}

// readStmts are the read pool's statements, each compiled once and kept
// until the store closes, where the driver compiles an ad-hoc query on
// each call (for a small read, most of its CPU). A statement prepared on
// the pool is prepared again on each connection the first time it runs
// there.
type readStmts struct {
	db     *sql.DB
	mu     sync.Mutex
	stmts  map[string]*sql.Stmt
	closed bool
}

// prepareReads prepares readQueries on db.
func prepareReads(ctx context.Context, db *sql.DB) (*readStmts, error) {
	r := &readStmts{db: db, stmts: make(map[string]*sql.Stmt, maxReadStmts)}
	for _, q := range readQueries {
		st, err := db.PrepareContext(ctx, q)
		if err != nil {
			return nil, errors.Join(fmt.Errorf("prepare %q: %w", q, err), r.close())
		}
		r.stmts[q] = st
	}
	return r, nil
}

// held returns query's statement, or nil when it has none.
func (r *readStmts) held(query string) *sql.Stmt {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stmts[query]
}

// stmt returns query's statement, preparing it when it has none and
// holds fewer than maxReadStmts; nil when it cannot, and the query then
// runs as is (a failed prepare fails the same way there). It holds no
// connection while it prepares one: only a caller that holds none may
// call it.
func (r *readStmts) stmt(ctx context.Context, query string) *sql.Stmt {
	r.mu.Lock()
	st, full := r.stmts[query], len(r.stmts) >= maxReadStmts || r.closed
	r.mu.Unlock()
	if st != nil || full {
		return st
	}
	st, err := r.db.PrepareContext(ctx, query)
	if err != nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if held := r.stmts[query]; held != nil || r.closed || len(r.stmts) >= maxReadStmts {
		st.Close()
		return held
	}
	r.stmts[query] = st
	return st
}

// close closes every statement; later queries run as is.
func (r *readStmts) close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	err := closeStmts(r.stmts)
	clear(r.stmts)
	return err
}

// readPool runs queries on the read pool through their kept statements.
type readPool struct{ *readStmts }

func (p readPool) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if st := p.stmt(ctx, query); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return p.db.QueryContext(ctx, query, args...)
}

func (p readPool) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if st := p.stmt(ctx, query); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return p.db.QueryRowContext(ctx, query, args...)
}

// pool returns the read pool, running queries through kept statements.
func (s *Store) pool() readPool { return readPool{s.reads} }
