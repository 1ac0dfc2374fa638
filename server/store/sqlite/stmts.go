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
func prepareWriter(ctx context.Context, db *sql.DB) (map[string]*sql.Stmt, error) {
	stmts := make(map[string]*sql.Stmt, len(writerQueries))
	for _, q := range writerQueries {
		st, err := db.PrepareContext(ctx, q)
		if err != nil {
			return nil, errors.Join(fmt.Errorf("prepare %q: %w", q, err), closeStmts(stmts))
		}
		stmts[q] = st
	}
	return stmts, nil
}

func closeStmts(stmts map[string]*sql.Stmt) error {
	var errs []error
	for _, st := range stmts {
		errs = append(errs, st.Close())
	}
	return errors.Join(errs...)
}

// writeTx is a write transaction that runs the writer's statements
// prepared and any other query as is. Its statements end with it.
type writeTx struct {
	tx       *sql.Tx
	prepared map[string]*sql.Stmt
	bound    map[string]*sql.Stmt
}

func newWriteTx(tx *sql.Tx, prepared map[string]*sql.Stmt) *writeTx {
	return &writeTx{tx: tx, prepared: prepared, bound: make(map[string]*sql.Stmt, len(prepared))}
}

// stmt returns query's prepared statement bound to the transaction, or nil.
func (w *writeTx) stmt(ctx context.Context, query string) *sql.Stmt {
	if st := w.bound[query]; st != nil {
		return st
	}
	st := w.prepared[query]
	if st == nil {
		return nil
	}
	st = w.tx.StmtContext(ctx, st)
	w.bound[query] = st
	return st
}

func (w *writeTx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if st := w.stmt(ctx, query); st != nil {
		return st.ExecContext(ctx, args...)
	}
	return w.tx.ExecContext(ctx, query, args...)
}

func (w *writeTx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if st := w.stmt(ctx, query); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return w.tx.QueryContext(ctx, query, args...)
}

func (w *writeTx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if st := w.stmt(ctx, query); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return w.tx.QueryRowContext(ctx, query, args...)
}
