package postgres

import (
	"context"
	"errors"
	"fmt"
	"sort"
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
func lockRepo(ctx context.Context, tx pgx.Tx, slug string) (*repoState, error) {
	for range 3 {
		st := &repoState{slug: slug}
		var modified int64
		err := tx.QueryRow(ctx, `SELECT id, version, last_modified, checksum, compacted_through FROM repos WHERE slug = $1 FOR UPDATE`, slug).
			Scan(&st.id, &st.version, &modified, &st.checksum, &st.compactedThrough)
		if err == nil {
			st.lastModified = time.Unix(0, modified).UTC()
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

// plan is what one write changes.
type plan struct {
	upserts map[string]upsert // only keys whose value changes
	deletes []string          // live keys to tombstone
	changed []string          // sorted union of both
}

// upsert is a new value and its entry checksum.
type upsert struct {
	value, sum string
}

// planWrite checks w against cur and works out its changes, with the SQLite
// store's rules: an unchanged value or a delete of a key not live changes
// nothing, tombstones do not count towards MaxEntries, and a key may not be
// both written with a new value and deleted.
func planWrite(cur *repoState, w store.Write) (plan, error) {
	if w.IfMatch != "" && w.IfMatch != cur.checksum {
		return plan{}, store.ErrPrecondition
	}
	p := plan{upserts: make(map[string]upsert, len(w.Entries))}
	live := len(cur.live)
	for k, v := range w.Entries {
		sum := api.EntryChecksum(v)
		old, ok := cur.live[k]
		if ok && old == sum {
			continue
		}
		if !ok {
			live++
		}
		p.upserts[k] = upsert{value: v, sum: sum}
		p.changed = append(p.changed, k)
	}
	seen := map[string]bool{}
	for _, k := range w.Deletes {
		if _, upserted := p.upserts[k]; upserted {
			return plan{}, fmt.Errorf("key %q is both written and deleted", k)
		}
		if _, wasLive := cur.live[k]; wasLive && !seen[k] {
			seen[k] = true
			p.deletes = append(p.deletes, k)
			p.changed = append(p.changed, k)
			live--
		}
	}
	if w.MaxEntries > 0 && live > w.MaxEntries && len(p.changed) > 0 {
		return plan{}, &store.TooManyEntriesError{Max: w.MaxEntries, Received: live}
	}
	sort.Strings(p.changed)
	return p, nil
}
