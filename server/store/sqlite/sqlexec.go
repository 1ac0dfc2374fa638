package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/teammemd/teammemd/server/store"
)

// sqlQuerier runs the shared parts' queries on q, a pool or a
// transaction.
func sqlQuerier(q queryer) store.Querier {
	return store.DriverQuery[*sql.Rows]{Open: q.QueryContext, Close: closeRows}
}

func closeRows(rows *sql.Rows) { rows.Close() }

// sharedSQL runs the shared parts' queries with its Querier and their
// changes on wdb, each in a transaction of its own, whose outcome full
// records.
type sharedSQL struct {
	store.Querier
	wdb  *sql.DB
	full *store.FullWatch
}

// Exec implements store.SQL. A change refused for want of room is a
// store.ErrFull.
func (d sharedSQL) Exec(ctx context.Context, stmts ...store.Stmt) (int64, error) {
	n, err := d.exec(ctx, stmts...)
	return n, d.full.Note(fullError(err))
}

// exec runs stmts in one transaction.
func (d sharedSQL) exec(ctx context.Context, stmts ...store.Stmt) (int64, error) {
	tx, err := d.wdb.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback()
	var n int64
	for _, st := range stmts {
		res, err := tx.ExecContext(ctx, st.SQL, st.Args...)
		if err != nil {
			return 0, err
		}
		if n, err = res.RowsAffected(); err != nil {
			return 0, err
		}
	}
	return n, tx.Commit()
}
