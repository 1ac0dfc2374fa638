package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/teammemd/teammemd/server/store"
)

// querier runs queries on the pool or in a transaction.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// ExportRepo implements store.Exporter, reading the repo in one
// repeatable-read transaction.
func (s *Store) ExportRepo(ctx context.Context, repo string) (store.RepoDump, error) {
	tx, err := s.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return store.RepoDump{}, fmt.Errorf("begin read: %w", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	d, _, err := exportRepo(ctx, tx, repo)
	return d, err
}

// exportRepo reads repo within q and returns it with its row's id.
func exportRepo(ctx context.Context, q querier, repo string) (store.RepoDump, int64, error) {
	d := store.RepoDump{Repo: repo}
	var id, modified int64
	err := q.QueryRow(ctx, "SELECT id, version, last_modified, checksum, compacted_through FROM repos WHERE slug = $1 AND version > 0", repo).
		Scan(&id, &d.Version, &modified, &d.Checksum, &d.CompactedThrough)
	if errors.Is(err, pgx.ErrNoRows) {
		return d, 0, store.ErrNotFound
	}
	if err != nil {
		return d, 0, fmt.Errorf("export %s: %w", repo, err)
	}
	d.LastModified = unixNano(modified)
	if err := store.ExportKeys(ctx, pgQuerier(q), id, &d); err != nil {
		return d, 0, err
	}
	return d, id, nil
}
