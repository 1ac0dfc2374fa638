package postgres

import (
	"context"
	"fmt"

	"github.com/teammemd/teammemd/server/store"
)

// Snapshot implements store.Store with one statement, so the repo's row and
// its entries are read from the same database snapshot.
func (s *Store) Snapshot(ctx context.Context, repo string, withValues bool) (store.Snapshot, error) {
	if !withValues {
		return s.readSnapshot(ctx, repo, "NULL::bytea", nil, nil)
	}
	return s.readSnapshot(ctx, repo, "e.value", nil, func(string) bool { return true })
}

// SnapshotOf implements store.Store with one statement, as Snapshot does,
// that reads the values of the keys named alone.
func (s *Store) SnapshotOf(ctx context.Context, repo string, keys []string) (store.Snapshot, error) {
	named := make(map[string]bool, len(keys))
	for _, k := range keys {
		named[k] = true
	}
	if keys == nil {
		keys = []string{}
	}
	return s.readSnapshot(ctx, repo, "CASE WHEN e.key = ANY($2) THEN e.value END", []any{keys},
		func(key string) bool { return named[key] })
}

// readSnapshot reads repo's row and its entries, with value, an SQL
// expression over the entry e that args after the slug parameterize, as
// each entry's value, kept for the live keys wanted selects; nil wanted
// keeps no values and leaves Entries nil.
func (s *Store) readSnapshot(ctx context.Context, repo, value string, args []any, wanted func(key string) bool) (store.Snapshot, error) {
	rows, err := s.pool.Query(ctx, `SELECT r.version, r.last_modified, r.checksum, r.compacted_through, e.key, e.checksum, e.deleted_at, `+value+`
		FROM repos r LEFT JOIN entries e ON e.repo_id = r.id WHERE r.slug = $1 AND r.version > 0`, append([]any{repo}, args...)...)
	if err != nil {
		return store.Snapshot{}, fmt.Errorf("read repo %s: %w", repo, err)
	}
	defer rows.Close()
	snap := store.Snapshot{Repo: repo, EntryChecksums: map[string]string{}, Deleted: map[string]int64{}}
	if wanted != nil {
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
		if wanted != nil && sum != nil && wanted(*key) {
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
