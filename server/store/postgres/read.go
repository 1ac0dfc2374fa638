package postgres

import (
	"context"
	"fmt"

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
