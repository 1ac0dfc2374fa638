package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/teammemd/teammemd/server/store"
)

// sqlParts are the parts package store writes once for the SQL backends,
// embedded in Store so that their methods are Store's.
type sqlParts = store.SQLParts

// sharedSQL runs the shared parts' statements on the pool.
type sharedSQL struct {
	pgQuerier
	pool *pgxpool.Pool
}

// pgQuerier runs the shared parts' queries on the pool or in a
// transaction.
type pgQuerier struct {
	q querier
}

// share sets up the shared parts of s on its pool.
func (s *Store) share() {
	s.sqlParts = store.NewSQLParts(sharedSQL{pgQuerier: pgQuerier{q: s.pool}, pool: s.pool})
}

// Query implements store.Querier.
func (d pgQuerier) Query(ctx context.Context, each func(store.Scanner) error, query string, args ...any) error {
	rows, err := d.q.Query(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	return store.EachRow(rows, each)
}

// Exec implements store.SQL.
func (d sharedSQL) Exec(ctx context.Context, stmts ...store.Stmt) (int64, error) {
	var n int64
	err := pgx.BeginFunc(ctx, d.pool, func(tx pgx.Tx) error {
		for _, st := range stmts {
			tag, err := tx.Exec(ctx, st.SQL, st.Args...)
			if err != nil {
				return err
			}
			n = tag.RowsAffected()
		}
		return nil
	})
	return n, err
}
