package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/store"
)

// repoState is a repo's row, locked by the write transaction that read it,
// and its keys.
type repoState struct {
	id           int64
	slug         string
	version      int64
	lastModified time.Time
	checksum     string
	// compactedThrough is the version of the last write that compacted
	// deletion markers.
	compactedThrough int64
	live             map[string]string // key to entry checksum
	deleted          map[string]int64  // tombstoned key to deletion time, Unix ms
}

func (st *repoState) result(changed []string) store.Result {
	if changed == nil {
		changed = []string{}
	}
	return store.Result{Version: st.version, LastModified: st.lastModified, Checksum: st.checksum, Changed: changed}
}

// lockRepo locks the row of slug and reads the repo's keys. A repo never
// written gets a row of version 0 that only this transaction sees; it goes
// away with a rollback.
func (s *Store) lockRepo(ctx context.Context, tx pgx.Tx, slug string) (*repoState, error) {
	for range 3 {
		st := &repoState{slug: slug}
		var modified int64
		err := tx.QueryRow(ctx, `SELECT id, version, last_modified, checksum, compacted_through FROM repos WHERE slug = $1 FOR UPDATE`, slug).
			Scan(&st.id, &st.version, &modified, &st.checksum, &st.compactedThrough)
		if err == nil {
			st.lastModified = time.Unix(0, modified).UTC()
			if cached, ok := s.keys.get(st); ok {
				return cached, nil
			}
			return st, readKeys(ctx, tx, st)
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return nil, fmt.Errorf("lock repo %s: %w", slug, err)
		}
		err = tx.QueryRow(ctx, `INSERT INTO repos (slug, version, last_modified, checksum) VALUES ($1, 0, 0, $2)
			ON CONFLICT (slug) DO NOTHING RETURNING id`, slug, api.EmptyRepoChecksum).Scan(&st.id)
		if err == nil {
			st.checksum = api.EmptyRepoChecksum
			st.live, st.deleted = map[string]string{}, map[string]int64{}
			return st, nil
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return nil, fmt.Errorf("create repo %s: %w", slug, err)
		}
		// Another transaction created the repo meanwhile: lock its row.
	}
	return nil, fmt.Errorf("lock repo %s: created and removed again by others three times", slug)
}

// readKeys fills st's keys from the entries table.
func readKeys(ctx context.Context, tx pgx.Tx, st *repoState) error {
	rows, err := tx.Query(ctx, `SELECT key, checksum, deleted_at FROM entries WHERE repo_id = $1`, st.id)
	if err != nil {
		return fmt.Errorf("read entries of %s: %w", st.slug, err)
	}
	defer rows.Close()
	st.live, st.deleted = map[string]string{}, map[string]int64{}
	for rows.Next() {
		var key string
		var sum *string
		var deletedAt *int64
		if err := rows.Scan(&key, &sum, &deletedAt); err != nil {
			return fmt.Errorf("read entries of %s: %w", st.slug, err)
		}
		addKey(st.live, st.deleted, key, sum, deletedAt)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read entries of %s: %w", st.slug, err)
	}
	return nil
}

// addKey records one entries row: live with its checksum, or a tombstone.
func addKey(live map[string]string, deleted map[string]int64, key string, sum *string, deletedAt *int64) {
	switch {
	case sum != nil:
		live[key] = *sum
	case deletedAt != nil:
		deleted[key] = *deletedAt
	default:
		deleted[key] = 0
	}
}

// Checksum implements store.KeyView.
func (st *repoState) Checksum() string { return st.checksum }

// LiveCount implements store.KeyView.
func (st *repoState) LiveCount() int { return len(st.live) }

// EntryChecksum implements store.KeyView.
func (st *repoState) EntryChecksum(key string) (string, bool) {
	sum, ok := st.live[key]
	return sum, ok
}
