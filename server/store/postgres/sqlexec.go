package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/teammemd/teammemd/server/store"
)

// pgQuerier runs the shared parts' queries on q, the pool or a
// transaction.
func pgQuerier(q querier) store.Querier {
	return store.DriverQuery[pgx.Rows]{Open: q.Query, Close: pgx.Rows.Close}
}

// poolSQL runs the shared parts' statements on the pool, changes each in
// a transaction of its own, whose outcome full records.
type poolSQL struct {
	store.Querier
	pool *pgxpool.Pool
	full *store.FullWatch
}

// Exec implements store.SQL. A change refused for want of room is a
// store.ErrFull.
func (d poolSQL) Exec(ctx context.Context, stmts ...store.Stmt) (int64, error) {
	n, err := d.exec(ctx, stmts...)
	return n, d.full.Note(fullError(err))
}

// exec runs stmts in one transaction.
func (d poolSQL) exec(ctx context.Context, stmts ...store.Stmt) (int64, error) {
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
