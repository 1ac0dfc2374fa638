package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/teammemd/teammemd/server/store"
)

// sqlParts are the parts package store writes once for the SQL backends,
// embedded in Store so that their methods are Store's.
type sqlParts = store.SQLParts

// sharedSQL runs the shared parts' statements: queries on the read pool,
// changes on the writer's connection.
type sharedSQL struct {
	sqlQuerier
	wdb *sql.DB
}

// sqlQuerier runs the shared parts' queries on a pool or in a transaction.
type sqlQuerier struct {
	q queryer
}

// share sets up the shared parts of s on its databases.
func (s *Store) share() {
	s.sqlParts = store.NewSQLParts(sharedSQL{sqlQuerier: sqlQuerier{q: s.rdb}, wdb: s.wdb})
}

// Query implements store.Querier.
func (d sqlQuerier) Query(ctx context.Context, each func(store.Scanner) error, query string, args ...any) error {
	rows, err := d.q.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	return store.EachRow(rows, each)
}

// Exec implements store.SQL.
func (d sharedSQL) Exec(ctx context.Context, stmts ...store.Stmt) (int64, error) {
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
