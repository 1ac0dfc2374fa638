package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/teammemd/teammemd/server/store"
)

// Snapshot implements store.Store with one statement, so the repo's row and
// its entries are read from the same database snapshot.
func (s *Store) Snapshot(ctx context.Context, repo string, withValues bool) (store.Snapshot, error) {
	value := "NULL::bytea"
	if withValues {
		value = "e.value"
	}
	rows, err := s.pool.Query(ctx, `SELECT r.version, r.last_modified, r.checksum, e.key, e.checksum, e.deleted_at, `+value+`
		FROM repos r LEFT JOIN entries e ON e.repo_id = r.id WHERE r.slug = $1 AND r.version > 0`, repo)
	if err != nil {
		return store.Snapshot{}, fmt.Errorf("read repo %s: %w", repo, err)
	}
	defer rows.Close()
	snap := store.Snapshot{Repo: repo, EntryChecksums: map[string]string{}, Deleted: map[string]int64{}}
	if withValues {
		snap.Entries = map[string]string{}
	}
	found := false
	for rows.Next() {
		var modified int64
		var key, sum *string
		var deletedAt *int64
		var val []byte
		if err := rows.Scan(&snap.Version, &modified, &snap.Checksum, &key, &sum, &deletedAt, &val); err != nil {
			return store.Snapshot{}, fmt.Errorf("read repo %s: %w", repo, err)
		}
		found = true
		snap.LastModified = unixNano(modified)
		if key == nil {
			continue
		}
		addKey(snap.EntryChecksums, snap.Deleted, *key, sum, deletedAt)
		if withValues && sum != nil {
			snap.Entries[*key] = string(val)
		}
	}
	if err := rows.Err(); err != nil {
		return store.Snapshot{}, fmt.Errorf("read repo %s: %w", repo, err)
	}
	if !found {
		return store.Snapshot{}, store.ErrNotFound
	}
	return snap, nil
}

// History implements store.Store. A repo never written returns
// store.ErrNotFound; a key never written returns no revisions. A Limit of 0
// or less lists them all.
func (s *Store) History(ctx context.Context, q store.HistoryQuery) ([]store.Revision, error) {
	var id, version int64
	err := s.pool.QueryRow(ctx, `SELECT id, version FROM repos WHERE slug = $1 AND version > 0`, q.Repo).Scan(&id, &version)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, store.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("read repo %s: %w", q.Repo, err)
	}
	before := q.Before
	if before <= 0 {
		before = version + 1
	}
	var limit *int64
	if q.Limit > 0 {
		n := int64(q.Limit)
		limit = &n
	}
	rows, err := s.pool.Query(ctx, `SELECT version, checksum, subject, time, content FROM revisions
		WHERE repo_id = $1 AND key = $2 AND version < $3 ORDER BY version DESC LIMIT $4`, id, q.Key, before, limit)
	if err != nil {
		return nil, fmt.Errorf("read history: %w", err)
	}
	defer rows.Close()
	revs := []store.Revision{}
	for rows.Next() {
		var rev store.Revision
		var sum *string
		var ns int64
		var content []byte
		if err := rows.Scan(&rev.Version, &sum, &rev.Subject, &ns, &content); err != nil {
			return nil, fmt.Errorf("read history: %w", err)
		}
		rev.Deleted = sum == nil
		if sum != nil {
			rev.Checksum = *sum
		}
		rev.Time = unixNano(ns)
		if content != nil {
			c := string(content)
			rev.Content = &c
		}
		revs = append(revs, rev)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read history: %w", err)
	}
	return revs, nil
}
