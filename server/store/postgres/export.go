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

// Repos implements store.Exporter.
func (s *Store) Repos(ctx context.Context) ([]string, error) {
	rows, err := s.pool.Query(ctx, "SELECT slug FROM repos WHERE version > 0 AND "+teamSlugs+" ORDER BY slug")
	if err != nil {
		return nil, fmt.Errorf("list repos: %w", err)
	}
	repos, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("list repos: %w", err)
	}
	return repos, nil
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
	if d.Entries, err = exportEntries(ctx, q, id); err != nil {
		return d, 0, fmt.Errorf("export %s: %w", repo, err)
	}
	if d.Revisions, err = exportRevisions(ctx, q, id); err != nil {
		return d, 0, fmt.Errorf("export %s: %w", repo, err)
	}
	return d, id, nil
}

func exportEntries(ctx context.Context, q querier, id int64) ([]store.EntryDump, error) {
	rows, err := q.Query(ctx, "SELECT key, checksum, value, deleted_at FROM entries WHERE repo_id = $1 ORDER BY key", id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []store.EntryDump
	for rows.Next() {
		var e store.EntryDump
		var sum *string
		var value []byte
		var deletedAt *int64
		if err := rows.Scan(&e.Key, &sum, &value, &deletedAt); err != nil {
			return nil, err
		}
		if sum != nil {
			e.Checksum = *sum
		}
		if deletedAt != nil {
			e.DeletedAt = *deletedAt
		}
		e.Value = string(value)
		out = append(out, e)
	}
	return out, rows.Err()
}

func exportRevisions(ctx context.Context, q querier, id int64) ([]store.RevisionDump, error) {
	rows, err := q.Query(ctx, `SELECT key, version, checksum, subject, client, time, content FROM revisions
		WHERE repo_id = $1 ORDER BY key, version`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []store.RevisionDump
	for rows.Next() {
		var r store.RevisionDump
		var sum *string
		var ns int64
		var content []byte
		if err := rows.Scan(&r.Key, &r.Version, &sum, &r.Subject, &r.Client, &ns, &content); err != nil {
			return nil, err
		}
		r.Deleted = sum == nil
		if sum != nil {
			r.Checksum = *sum
		}
		r.Time = unixNano(ns)
		if content != nil {
			c := string(content)
			r.Content = &c
		}
		out = append(out, r)
	}
	return out, rows.Err()
}
