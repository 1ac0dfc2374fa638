package store

import (
	"context"
	"time"
)

// The parts of a store that the SQL backends share (tokens, web sessions,
// proposals, identity bindings, history pruning, the rows of an export and
// of history) are written once here, over SQL. Their statements are written
// once too where both dialects read them alike (SQLite takes PostgreSQL's
// numbered parameters); each backend runs them through its own driver.

// Scanner reads one row's columns, as *sql.Row, *sql.Rows, pgx.Row and
// pgx.Rows do. A nullable column is read into a pointer (nil for NULL).
type Scanner interface {
	Scan(dest ...any) error
}

// Rows is a query's result being read, as *sql.Rows and pgx.Rows are.
type Rows interface {
	Scanner
	Next() bool
	Err() error
}

// Stmt is one statement and its arguments.
type Stmt struct {
	SQL  string
	Args []any
}

// Querier runs a backend's queries for the shared parts, on its database
// or in a transaction.
type Querier interface {
	// Query runs query and calls each with every row in order, closing the
	// rows after; it returns the first error, each's included.
	Query(ctx context.Context, each func(Scanner) error, query string, args ...any) error
}

// SQL runs a backend's statements for the shared parts.
type SQL interface {
	Querier
	// Exec runs stmts in one transaction and returns how many rows the
	// last one changed.
	Exec(ctx context.Context, stmts ...Stmt) (int64, error)
}

// DriverQuery is a Querier on a driver's query function, such as
// (*sql.DB).QueryContext or pgx's Query, and its rows' Close.
type DriverQuery[R Rows] struct {
	Open  func(ctx context.Context, query string, args ...any) (R, error)
	Close func(R)
}

// Query implements Querier.
func (d DriverQuery[R]) Query(ctx context.Context, each func(Scanner) error, query string, args ...any) error {
	rows, err := d.Open(ctx, query, args...)
	if err != nil {
		return err
	}
	defer d.Close(rows)
	for rows.Next() {
		if err := each(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// queryAll runs query on db and reads every row with scan.
func queryAll[T any](ctx context.Context, db Querier, scan func(Scanner) (T, error), query string, args ...any) ([]T, error) {
	out := []T{}
	err := db.Query(ctx, func(r Scanner) error {
		v, err := scan(r)
		out = append(out, v)
		return err
	}, query, args...)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// queryFirst runs query on db and reads its first row with scan; found is
// false when there is none.
func queryFirst[T any](ctx context.Context, db Querier, scan func(Scanner) (T, error), query string, args ...any) (T, bool, error) {
	var first T
	found := false
	err := db.Query(ctx, func(r Scanner) error {
		if found {
			return nil
		}
		found = true
		v, err := scan(r)
		first = v
		return err
	}, query, args...)
	return first, found, err
}

// fromUnixNano turns a stored time in Unix nanoseconds into a UTC time.
func fromUnixNano(ns int64) time.Time { return time.Unix(0, ns).UTC() }

// optionalUnixNano is t in Unix nanoseconds for a nullable column: nil
// for the zero time.
func optionalUnixNano(t time.Time) *int64 {
	if t.IsZero() {
		return nil
	}
	ns := t.UnixNano()
	return &ns
}

// SQLParts are the parts of a store written once for the SQL backends. A
// backend embeds them, so that their methods are its own, on its SQL.
type SQLParts struct {
	SQLTokens
	SQLWebSessions
	SQLProposals
	SQLPruner
	SQLRepos
	SQLIdentityBindings
}

// NewSQLParts returns the shared parts running their statements on db.
func NewSQLParts(db SQL) SQLParts {
	return SQLParts{SQLTokens: SQLTokens{DB: db}, SQLWebSessions: SQLWebSessions{DB: db}, SQLProposals: SQLProposals{DB: db},
		SQLPruner: SQLPruner{DB: db}, SQLRepos: SQLRepos{DB: db}, SQLIdentityBindings: SQLIdentityBindings{DB: db}}
}
