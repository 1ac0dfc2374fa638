package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/teammemd/teammemd/server/store"
)

// Snapshot implements store.Store. Without values, a repo whose version is
// cached costs one row read.
func (s *Store) Snapshot(ctx context.Context, repo string, withValues bool) (store.Snapshot, error) {
	if !withValues {
		st, err := readRepoRow(ctx, s.rdb, repo)
		if err != nil {
			return store.Snapshot{}, err
		}
		if cached := s.cache.get(repo, st.version); cached != nil {
			return cached.snapshot(), nil
		}
	}
	tx, err := s.rdb.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return store.Snapshot{}, fmt.Errorf("begin read: %w", err)
	}
	defer tx.Rollback()
	st, err := readRepoRow(ctx, tx, repo)
	if err != nil {
		return store.Snapshot{}, err
	}
	if !withValues {
		if err := readChecksums(ctx, tx, st); err != nil {
			return store.Snapshot{}, err
		}
		s.cache.put(st)
		return st.snapshot(), nil
	}
	values, err := readValues(ctx, tx, st)
	if err != nil {
		return store.Snapshot{}, err
	}
	s.cache.put(st)
	snap := st.snapshot()
	snap.Entries = values
	return snap, nil
}

// readValues fills st's lines and returns every live value.
func readValues(ctx context.Context, q queryer, st *repoState) (map[string]string, error) {
	rows, err := q.QueryContext(ctx, "SELECT key, checksum, value, deleted_at FROM entries WHERE repo_id = ?", st.id)
	if err != nil {
		return nil, fmt.Errorf("read entries of %s: %w", st.slug, err)
	}
	defer rows.Close()
	var lines []entryLine
	values := map[string]string{}
	for rows.Next() {
		var l entryLine
		var sum sql.NullString
		var value []byte
		var deletedAt sql.NullInt64
		if err := rows.Scan(&l.key, &sum, &value, &deletedAt); err != nil {
			return nil, fmt.Errorf("read entries of %s: %w", st.slug, err)
		}
		l.sum, l.deletedAt = sum.String, deletedAt.Int64
		if l.live() {
			values[l.key] = string(value)
		}
		lines = append(lines, l)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read entries of %s: %w", st.slug, err)
	}
	sortLines(lines)
	st.setLines(lines)
	return values, nil
}

// History implements store.Store. A repo never written returns
// store.ErrNotFound; a key never written returns no revisions. A Limit of 0
// or less lists them all.
func (s *Store) History(ctx context.Context, q store.HistoryQuery) ([]store.Revision, error) {
	tx, err := s.rdb.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("begin read: %w", err)
	}
	defer tx.Rollback()
	if q.Repo == "" {
		return queryRevisions(ctx, tx, `SELECT r.slug, v.key, v.version, v.checksum, v.subject, v.time, `+contentColumn(q, "v.content")+`
			FROM revisions v JOIN repos r ON r.id = v.repo_id ORDER BY r.slug, v.version DESC, v.key LIMIT ?`, limitArg(q.Limit))
	}
	st, err := readRepoRow(ctx, tx, q.Repo)
	if err != nil {
		return nil, err
	}
	before := q.Before
	if before <= 0 {
		before = st.version + 1
	}
	if q.Key != "" {
		return queryRevisions(ctx, tx, `SELECT ?, key, version, checksum, subject, time, `+contentColumn(q, "content")+` FROM revisions
			WHERE repo_id = ? AND key = ? AND version < ? ORDER BY version DESC LIMIT ?`, st.slug, st.id, q.Key, before, limitArg(q.Limit))
	}
	afterKey, lastVersion := q.BeforeKey, before
	if q.Before <= 0 || q.BeforeKey == "" {
		afterKey, lastVersion = "", before-1
	}
	return queryRevisions(ctx, tx, `SELECT ?, key, version, checksum, subject, time, `+contentColumn(q, "content")+` FROM revisions
		WHERE repo_id = ? AND (version < ? OR (version = ? AND key > ?)) ORDER BY version DESC, key LIMIT ?`,
		st.slug, st.id, before, lastVersion, afterKey, limitArg(q.Limit))
}

// contentColumn is the content column of a history query, or NULL when q
// asks for no content, so the values are never read.
func contentColumn(q store.HistoryQuery, column string) string {
	if q.NoContent {
		return "NULL"
	}
	return column
}

// limitArg is a LIMIT argument: n, or no limit for 0 or less.
func limitArg(n int) int64 {
	if n <= 0 {
		return -1 // no limit in SQLite
	}
	return int64(n)
}

// queryRevisions runs a query whose rows are revisions.
func queryRevisions(ctx context.Context, tx *sql.Tx, query string, args ...any) ([]store.Revision, error) {
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("read history: %w", err)
	}
	defer rows.Close()
	revs := []store.Revision{}
	for rows.Next() {
		rev, err := scanRevision(rows)
		if err != nil {
			return nil, err
		}
		revs = append(revs, rev)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read history: %w", err)
	}
	return revs, nil
}

func scanRevision(rows *sql.Rows) (store.Revision, error) {
	var rev store.Revision
	var sum sql.NullString
	var ns int64
	var content []byte
	if err := rows.Scan(&rev.Repo, &rev.Key, &rev.Version, &sum, &rev.Subject, &ns, &content); err != nil {
		return rev, fmt.Errorf("read history: %w", err)
	}
	fillRevision(&rev, sum, ns, content)
	return rev, nil
}

// fillRevision sets rev's fields read from their columns.
func fillRevision(rev *store.Revision, sum sql.NullString, ns int64, content []byte) {
	rev.Checksum = sum.String
	rev.Deleted = !sum.Valid
	rev.Time = time.Unix(0, ns).UTC()
	if content != nil {
		c := string(content)
		rev.Content = &c
	}
}
