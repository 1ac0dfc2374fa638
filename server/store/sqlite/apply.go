package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"sort"
	"time"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/store"
)

// queryer is what reading a repo's state needs: a transaction on either pool.
type queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// loadState returns the current state of slug within tx: the state an
// earlier write of the same batch left, else the cached state at the
// database's version, else the state read from the entries table.
func (s *Store) loadState(ctx context.Context, q queryer, batch map[string]*repoState, slug string) (*repoState, error) {
	if st := batch[slug]; st != nil {
		return st, nil
	}
	st, err := readRepoRow(ctx, q, slug)
	if errors.Is(err, store.ErrNotFound) {
		return emptyState(slug), nil
	}
	if err != nil {
		return nil, err
	}
	if cached := s.cache.get(slug, st.version); cached != nil {
		return cached, nil
	}
	if err := readChecksums(ctx, q, st); err != nil {
		return nil, err
	}
	s.cache.put(st)
	return st, nil
}

func emptyState(slug string) *repoState {
	return &repoState{slug: slug, checksum: api.EmptyRepoChecksum, live: map[string]string{}, deleted: map[string]int64{}}
}

// readRepoRow reads the repos row of slug, or returns store.ErrNotFound.
func readRepoRow(ctx context.Context, q queryer, slug string) (*repoState, error) {
	st := &repoState{slug: slug}
	var modified int64
	err := q.QueryRowContext(ctx, "SELECT id, version, last_modified, checksum FROM repos WHERE slug = ?", slug).
		Scan(&st.id, &st.version, &modified, &st.checksum)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, store.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("read repo %s: %w", slug, err)
	}
	st.lastModified = time.Unix(0, modified).UTC()
	return st, nil
}

// readChecksums fills st's live and deleted maps from the entries table.
func readChecksums(ctx context.Context, q queryer, st *repoState) error {
	rows, err := q.QueryContext(ctx, "SELECT key, checksum, deleted_at FROM entries WHERE repo_id = ?", st.id)
	if err != nil {
		return fmt.Errorf("read entries of %s: %w", st.slug, err)
	}
	defer rows.Close()
	st.live, st.deleted = map[string]string{}, map[string]int64{}
	for rows.Next() {
		var key string
		var sum sql.NullString
		var deletedAt sql.NullInt64
		if err := rows.Scan(&key, &sum, &deletedAt); err != nil {
			return fmt.Errorf("read entries of %s: %w", st.slug, err)
		}
		if sum.Valid {
			st.live[key] = sum.String
		} else {
			st.deleted[key] = deletedAt.Int64
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read entries of %s: %w", st.slug, err)
	}
	return nil
}

// plan is what one write changes.
type plan struct {
	upserts map[string]string // key -> value, only keys whose value changes
	deletes []string          // live keys to tombstone
	changed []string          // sorted union of both
}

// planWrite checks w against cur and works out its changes.
func planWrite(cur *repoState, w store.Write) (plan, error) {
	if w.IfMatch != "" && w.IfMatch != cur.checksum {
		return plan{}, store.ErrPrecondition
	}
	p := plan{upserts: map[string]string{}}
	live := len(cur.live)
	for k, v := range w.Entries {
		sum, ok := cur.live[k]
		if ok && sum == api.EntryChecksum(v) {
			continue
		}
		if !ok {
			live++
		}
		p.upserts[k] = v
		p.changed = append(p.changed, k)
	}
	for _, k := range w.Deletes {
		_, wasLive := cur.live[k]
		_, upserted := p.upserts[k]
		if upserted {
			return plan{}, fmt.Errorf("key %q is both written and deleted", k)
		}
		if wasLive && !contains(p.deletes, k) {
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

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// writePlan writes p to the database and returns the repo's next state.
func writePlan(ctx context.Context, tx *sql.Tx, cur *repoState, p plan, w store.Write) (*repoState, error) {
	next := &repoState{
		id:           cur.id,
		slug:         cur.slug,
		version:      cur.version + 1,
		lastModified: w.Time.UTC().Round(0),
		live:         maps.Clone(cur.live),
		deleted:      maps.Clone(cur.deleted),
	}
	if next.id == 0 {
		res, err := tx.ExecContext(ctx, "INSERT INTO repos (slug, version, last_modified, checksum) VALUES (?, 0, 0, '')", cur.slug)
		if err != nil {
			return nil, fmt.Errorf("create repo: %w", err)
		}
		if next.id, err = res.LastInsertId(); err != nil {
			return nil, fmt.Errorf("create repo: %w", err)
		}
	}
	ns := next.lastModified.UnixNano()
	for k, v := range p.upserts {
		sum := api.EntryChecksum(v)
		if _, err := tx.ExecContext(ctx, upsertEntry, next.id, k, sum, []byte(v)); err != nil {
			return nil, fmt.Errorf("write entry: %w", err)
		}
		if _, err := tx.ExecContext(ctx, insertRevision, next.id, k, next.version, sum, w.Subject, ns, []byte(v)); err != nil {
			return nil, fmt.Errorf("record revision: %w", err)
		}
		next.live[k] = sum
		delete(next.deleted, k)
	}
	ms := next.lastModified.UnixMilli()
	for _, k := range p.deletes {
		if _, err := tx.ExecContext(ctx, tombstoneEntry, ms, next.id, k); err != nil {
			return nil, fmt.Errorf("delete entry: %w", err)
		}
		if _, err := tx.ExecContext(ctx, insertRevision, next.id, k, next.version, nil, w.Subject, ns, nil); err != nil {
			return nil, fmt.Errorf("record revision: %w", err)
		}
		delete(next.live, k)
		next.deleted[k] = ms
	}
	next.checksum = api.RepoChecksum(next.live, next.deleted)
	if _, err := tx.ExecContext(ctx, "UPDATE repos SET version = ?, last_modified = ?, checksum = ? WHERE id = ?",
		next.version, ns, next.checksum, next.id); err != nil {
		return nil, fmt.Errorf("update repo: %w", err)
	}
	return next, nil
}

const (
	upsertEntry = `INSERT INTO entries (repo_id, key, checksum, value, deleted_at) VALUES (?, ?, ?, ?, NULL)
		ON CONFLICT (repo_id, key) DO UPDATE SET checksum = excluded.checksum, value = excluded.value, deleted_at = NULL`
	tombstoneEntry = `UPDATE entries SET checksum = NULL, value = NULL, deleted_at = ? WHERE repo_id = ? AND key = ?`
	insertRevision = `INSERT INTO revisions (repo_id, key, version, checksum, subject, time, content) VALUES (?, ?, ?, ?, ?, ?, ?)`
)
