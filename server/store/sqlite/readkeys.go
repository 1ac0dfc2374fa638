package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/teammemd/teammemd/server/store"
)

// SnapshotOf implements store.Store in one read transaction: the repo's
// row, its checksums (the cached state when it is of the row's version)
// and the values of those of keys that the state holds live.
func (s *Store) SnapshotOf(ctx context.Context, repo string, keys []string) (store.Snapshot, error) {
	tx, err := s.rdb.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return store.Snapshot{}, fmt.Errorf("begin read: %w", err)
	}
	defer tx.Rollback()
	st, err := readRepoRow(ctx, tx, repo)
	if err != nil {
		return store.Snapshot{}, err
	}
	if cached := s.cache.get(repo, st.version); cached != nil {
		values, ok, err := readValuesOf(ctx, tx, cached, keys)
		if err != nil || ok {
			return withValues(cached, values), err
		}
	}
	if err := readChecksums(ctx, tx, st); err != nil {
		return store.Snapshot{}, err
	}
	s.cache.put(st)
	values, ok, err := readValuesOf(ctx, tx, st, keys)
	if err == nil && !ok {
		err = fmt.Errorf("read values of %s: a value and its checksum differ in one read", repo)
	}
	return withValues(st, values), err
}

// withValues returns st's snapshot holding values.
func withValues(st *repoState, values map[string]string) store.Snapshot {
	snap := st.snapshot()
	snap.Entries = values
	return snap
}

// readValuesOf returns the values of those of keys that st holds live,
// in one statement, and whether the entries read are those st holds: the
// same live keys with the same checksums.
func readValuesOf(ctx context.Context, q queryer, st *repoState, keys []string) (map[string]string, bool, error) {
	live := liveKeys(st, keys)
	values := make(map[string]string, len(live))
	if len(live) == 0 {
		return values, true, nil
	}
	args := make([]any, 0, len(live)+1)
	args = append(args, st.id)
	for _, k := range live {
		args = append(args, k)
	}
	query := "SELECT key, checksum, value FROM entries WHERE repo_id = ? AND checksum IS NOT NULL AND key IN (?" +
		strings.Repeat(", ?", len(live)-1) + ")"
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, false, fmt.Errorf("read values of %s: %w", st.slug, err)
	}
	defer rows.Close()
	same := true
	for rows.Next() {
		var key, sum string
		var value []byte
		if err := rows.Scan(&key, &sum, &value); err != nil {
			return nil, false, fmt.Errorf("read values of %s: %w", st.slug, err)
		}
		if want, _ := st.EntryChecksum(key); sum != want {
			same = false
		}
		values[key] = string(value)
	}
	if err := rows.Err(); err != nil {
		return nil, false, fmt.Errorf("read values of %s: %w", st.slug, err)
	}
	return values, same && len(values) == len(live), nil
}

// liveKeys returns the keys of keys that st holds live, each once.
func liveKeys(st *repoState, keys []string) []string {
	out := make([]string, 0, len(keys))
	seen := make(map[string]bool, len(keys))
	for _, k := range keys {
		if _, live := st.EntryChecksum(k); live && !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out
}
