package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// Statements every write runs. The driver compiles an ad-hoc statement on
// each call; these are prepared once on the write connection instead.
const (
	selectRepo   = "SELECT id, version, last_modified, checksum, compacted_through FROM repos WHERE slug = ?"
	selectSums   = "SELECT key, checksum, deleted_at FROM entries WHERE repo_id = ?"
	insertRepo   = "INSERT INTO repos (slug, version, last_modified, checksum) VALUES (?, 0, 0, '')"
	updateRepo   = "UPDATE repos SET version = ?, last_modified = ?, checksum = ?, compacted_through = ? WHERE id = ?"
	savepoint    = "SAVEPOINT w"
	releaseSave  = "RELEASE w"
	rollbackSave = "ROLLBACK TO w"
	upsertEntry  = `INSERT INTO entries (repo_id, key, checksum, value, deleted_at) VALUES (?, ?, ?, ?, NULL)
		ON CONFLICT (repo_id, key) DO UPDATE SET checksum = excluded.checksum, value = excluded.value, deleted_at = NULL`
	tombstoneEntry = `UPDATE entries SET checksum = NULL, value = NULL, deleted_at = ? WHERE repo_id = ? AND key = ?`
	insertRevision = `INSERT INTO revisions (repo_id, key, version, checksum, subject, client, time, content) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`
	dropMarker     = `DELETE FROM entries WHERE repo_id = ? AND key = ? AND checksum IS NULL`
)

var writerQueries = []string{
	selectRepo, selectSums, insertRepo, updateRepo, savepoint, releaseSave, rollbackSave,
	upsertEntry, tombstoneEntry, insertRevision, dropMarker,
}

// prepareWriter prepares the writer's statements on db.
func prepareWriter(ctx context.Context, db *sql.DB) (stmtMap, error) {
	stmts := make(stmtMap, len(writerQueries))
	for _, q := range writerQueries {
		st, err := db.PrepareContext(ctx, q)
		if err != nil {
			return nil, errors.Join(fmt.Errorf("prepare %q: %w", q, err), closeStmts(stmts))
		}
		stmts[q] = st
	}
	return stmts, nil
}

// stmtMap holds statements prepared once, by query.
type stmtMap map[string]*sql.Stmt

func (m stmtMap) held(query string) *sql.Stmt { return m[query] }

func closeStmts(stmts map[string]*sql.Stmt) error {
	var errs []error
	for _, st := range stmts {
		errs = append(errs, st.Close())
	}
	return errors.Join(errs...)
}

// heldStmts are statements prepared once, on the connection pool a
// transaction takes its connection from.
type heldStmts interface {
	held(query string) *sql.Stmt
}

// stmtTx is a transaction that runs the statements prepared for its pool
// and any other query as is. Its statements end with it.
type stmtTx struct {
	tx       *sql.Tx
	prepared heldStmts
	bound    map[string]*sql.Stmt
}

func newStmtTx(tx *sql.Tx, prepared heldStmts) *stmtTx {
	return &stmtTx{tx: tx, prepared: prepared, bound: make(map[string]*sql.Stmt, 4)}
}

// stmt returns query's prepared statement bound to the transaction, or nil.
func (w *stmtTx) stmt(ctx context.Context, query string) *sql.Stmt {
	if st := w.bound[query]; st != nil {
		return st
	}
	st := w.prepared.held(query)
	if st == nil {
		return nil
	}
	st = w.tx.StmtContext(ctx, st)
	w.bound[query] = st
	return st
}

// Rollback ends the transaction, and its statements with it.
func (w *stmtTx) Rollback() error { return w.tx.Rollback() }

func (w *stmtTx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if st := w.stmt(ctx, query); st != nil {
		return st.ExecContext(ctx, args...)
	}
	return w.tx.ExecContext(ctx, query, args...)
}

func (w *stmtTx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if st := w.stmt(ctx, query); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return w.tx.QueryContext(ctx, query, args...)
}

func (w *stmtTx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if st := w.stmt(ctx, query); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return w.tx.QueryRowContext(ctx, query, args...)
}
