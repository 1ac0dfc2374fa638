package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/teammemd/teammemd/server/store"
)

// Snapshot implements store.Store. Without values, a repo whose version is
// cached costs one row read.
func (s *Store) Snapshot(ctx context.Context, repo string, withValues bool) (store.Snapshot, error) {
	if !withValues {
		st, err := readRepoRow(ctx, s.pool(), repo)
		if err != nil {
			return store.Snapshot{}, err
		}
		if cached := s.cache.get(repo, st.version); cached != nil {
			return cached.snapshot(), nil
		}
	}
	tx, st, err := s.beginRead(ctx, repo)
	if err != nil {
		return store.Snapshot{}, err
	}
	defer tx.Rollback()
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

// Recent returns the hashes of the newest version of repo this store
// has committed or read, from its cache and without touching the
// database; false when it holds none. A write by another process since
// is not in it: it serves the change waits that this process's own
// commit woke (a commit caches its state before it returns), for which a
// read of the database would find the same version.
func (s *Store) Recent(repo string) (store.Snapshot, bool) {
	st := s.cache.latest(repo)
	if st == nil {
		return store.Snapshot{}, false
	}
	return st.snapshot(), true
}

// beginRead starts a read transaction and reads repo's row in it; the
// caller rolls the transaction back.
func (s *Store) beginRead(ctx context.Context, repo string) (*stmtTx, *repoState, error) {
	tx, err := s.rdb.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, nil, fmt.Errorf("begin read: %w", err)
	}
	rtx := newStmtTx(tx, s.reads)
	st, err := readRepoRow(ctx, rtx, repo)
	if err != nil {
		tx.Rollback()
		return nil, nil, err
	}
	return rtx, st, nil
}

// readValues fills st's lines and returns every live value.
func readValues(ctx context.Context, q queryer, st *repoState) (map[string]string, error) {
	rows, err := q.QueryContext(ctx, selectValues, st.id)
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
