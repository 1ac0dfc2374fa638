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
	rows, err := s.pool.Query(ctx, `SELECT r.version, r.last_modified, r.checksum, r.compacted_through, e.key, e.checksum, e.deleted_at, `+value+`
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
		if err := rows.Scan(&snap.Version, &modified, &snap.Checksum, &snap.CompactedThrough, &key, &sum, &deletedAt, &val); err != nil {
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

// History implements store.Store: the revisions of one key, of every key
// of a repo, or of every repo, newest first (see store.HistoryQuery). A
// repo never written returns store.ErrNotFound; a key never written returns
// no revisions. A Limit of 0 or less lists them all.
func (s *Store) History(ctx context.Context, q store.HistoryQuery) ([]store.Revision, error) {
	var limit *int64
	if q.Limit > 0 {
		n := int64(q.Limit)
		limit = &n
	}
	if q.Repo == "" {
		return s.queryRevisions(ctx, `SELECT r.slug, v.key, v.version, v.checksum, v.subject, v.time, `+contentColumn(q, "v.content")+`
			FROM revisions v JOIN repos r ON r.id = v.repo_id WHERE r.version > 0
			ORDER BY r.slug, v.version DESC, v.key LIMIT $1`, limit)
	}
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
	if q.Key != "" {
		return s.queryRevisions(ctx, `SELECT $1::text, key, version, checksum, subject, time, `+contentColumn(q, "content")+` FROM revisions
			WHERE repo_id = $2 AND key = $3 AND version < $4 ORDER BY version DESC LIMIT $5`, q.Repo, id, q.Key, before, limit)
	}
	afterKey, lastVersion := q.BeforeKey, before
	if q.Before <= 0 || q.BeforeKey == "" {
		afterKey, lastVersion = "", before-1
	}
	return s.queryRevisions(ctx, `SELECT $1::text, key, version, checksum, subject, time, `+contentColumn(q, "content")+` FROM revisions
		WHERE repo_id = $2 AND (version < $3 OR (version = $4 AND key > $5)) ORDER BY version DESC, key LIMIT $6`,
		q.Repo, id, before, lastVersion, afterKey, limit)
}

// contentColumn is the content column of a history query, or NULL when q
// asks for no content, so the values are never read.
func contentColumn(q store.HistoryQuery, column string) string {
	if q.NoContent {
		return "NULL::bytea"
	}
	return column
}

// queryRevisions runs a query whose rows are revisions: repo, key,
// version, checksum, subject, time and content.
func (s *Store) queryRevisions(ctx context.Context, query string, args ...any) ([]store.Revision, error) {
	rows, err := s.pool.Query(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("read history: %w", err)
	}
	revs, err := pgx.CollectRows(rows, scanRevision)
	if err != nil {
		return nil, fmt.Errorf("read history: %w", err)
	}
	if revs == nil {
		revs = []store.Revision{}
	}
	return revs, nil
}

// scanRevision reads one revision row.
func scanRevision(row pgx.CollectableRow) (store.Revision, error) {
	var rev store.Revision
	var sum *string
	var ns int64
	var content []byte
	if err := row.Scan(&rev.Repo, &rev.Key, &rev.Version, &sum, &rev.Subject, &ns, &content); err != nil {
		return rev, err
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
	return rev, nil
}
