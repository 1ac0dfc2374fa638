package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

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
	// keys are the keys of live and deleted in byte order; nil until
	// sortedKeys is first called.
	keys []string
	// marks are the saved hash states of the checksum input; none for a
	// state read from the database.
	marks store.SumMarks
}

func (st *repoState) result(changed []string) store.Result {
	if changed == nil {
		changed = []string{}
	}
	return store.Result{Version: st.version, LastModified: st.lastModified, Checksum: st.checksum, Changed: changed}
}

// codeDivisionByZero is the SQLSTATE of guardRepo's failure.
const codeDivisionByZero = "22012"

const (
	selectRepoForUpdate = `SELECT id, version, last_modified, checksum, compacted_through FROM repos WHERE slug = $1 FOR UPDATE`
	lockRepoByID        = `SELECT 1 FROM repos WHERE id = $1 FOR UPDATE`
	// guardRepo fails its transaction with a division by zero unless the
	// repo's row holds the version, checksum and compaction mark given.
	guardRepo  = `SELECT 1 / count(*) FROM repos WHERE id = $1 AND version = $2 AND checksum = $3 AND compacted_through = $4`
	createRepo = `INSERT INTO repos (slug, version, last_modified, checksum) VALUES ($1, 0, 0, $2)
			ON CONFLICT (slug) DO NOTHING RETURNING id`
)

// beginLocked begins a write's transaction on conn and locks the row of
// slug in the same round trip, then reads the repo's keys as lockRepo
// does. The transaction is left open, committed or not, for the caller to
// end.
func (s *Store) beginLocked(ctx context.Context, conn *pgxpool.Conn, slug string) (*repoState, error) {
	st := &repoState{slug: slug}
	var modified int64
	found := false
	b := &pgx.Batch{}
	b.Queue("BEGIN")
	b.Queue(selectRepoForUpdate, slug).QueryRow(func(row pgx.Row) error {
		err := row.Scan(&st.id, &st.version, &modified, &st.checksum, &st.compactedThrough)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		found = err == nil
		return err
	})
	if err := conn.SendBatch(ctx, b).Close(); err != nil {
		return nil, fmt.Errorf("lock repo %s: %w", slug, err)
	}
	if !found {
		return s.lockRepo(ctx, conn, slug)
	}
	return s.withKeys(ctx, conn, st, modified)
}

// withKeys completes st, just read with its row's last_modified, with the
// repo's keys: the cached ones when they are still the row's, else those
// read from the entries table.
func (s *Store) withKeys(ctx context.Context, q querier, st *repoState, modified int64) (*repoState, error) {
	st.lastModified = time.Unix(0, modified).UTC()
	if cached, ok := s.keys.get(st); ok {
		return cached, nil
	}
	return st, readKeys(ctx, q, st)
}

// lockRepo locks the row of slug and reads the repo's keys. A repo never
// written gets a row of version 0 that only this transaction sees; it goes
// away with a rollback.
func (s *Store) lockRepo(ctx context.Context, q querier, slug string) (*repoState, error) {
	for range 3 {
		st := &repoState{slug: slug}
		var modified int64
		err := q.QueryRow(ctx, selectRepoForUpdate, slug).
			Scan(&st.id, &st.version, &modified, &st.checksum, &st.compactedThrough)
		if err == nil {
			return s.withKeys(ctx, q, st, modified)
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return nil, fmt.Errorf("lock repo %s: %w", slug, err)
		}
		err = q.QueryRow(ctx, createRepo, slug, api.EmptyRepoChecksum).Scan(&st.id)
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
func readKeys(ctx context.Context, q querier, st *repoState) error {
	rows, err := q.Query(ctx, `SELECT key, checksum, deleted_at FROM entries WHERE repo_id = $1`, st.id)
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
