package sqlite

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/teammemd/teammemd/server/store"
)

// SnapshotOf implements store.Store in one read transaction: the repo's
// row, its checksums (the cached state when it is of the row's version)
// and the values of those of keys that the state holds live. Should the
// values read not be those of the cached state, the checksums are read
// again in the same transaction.
func (s *Store) SnapshotOf(ctx context.Context, repo string, keys []string) (store.Snapshot, error) {
	tx, st, err := s.beginRead(ctx, repo)
	if err != nil {
		return store.Snapshot{}, err
	}
	defer tx.Rollback()
	if cached := s.cache.get(repo, st.version); cached != nil {
		values, ok, err := readValuesOf(ctx, tx, cached, keys)
		if err != nil {
			return store.Snapshot{}, err
		}
		if ok {
			return withValues(cached, values), nil
		}
	}
	if err := readChecksums(ctx, tx, st); err != nil {
		return store.Snapshot{}, err
	}
	s.cache.put(st)
	values, ok, err := readValuesOf(ctx, tx, st, keys)
	if err != nil {
		return store.Snapshot{}, err
	}
	if !ok {
		return store.Snapshot{}, fmt.Errorf("read values of %s: a value and its checksum differ in one read", repo)
	}
	return withValues(st, values), nil
}

// withValues returns st's snapshot holding values.
func withValues(st *repoState, values map[string]string) store.Snapshot {
	snap := st.snapshot()
	snap.Entries = values
	return snap
}

// readValuesOf returns the values of those of keys that st holds live,
// in one statement that takes them as a JSON array, and whether the
// entries read are those st holds: the same live keys with the same
// checksums.
func readValuesOf(ctx context.Context, q queryer, st *repoState, keys []string) (map[string]string, bool, error) {
	live := liveKeys(st, keys)
	if len(live) == 0 {
		return map[string]string{}, true, nil
	}
	values, same, err := readLiveValues(ctx, q, st, live)
	if err != nil {
		return nil, false, fmt.Errorf("read values of %s: %w", st.slug, err)
	}
	return values, same, nil
}

// readLiveValues reads the values of keys, which st holds live, and
// reports whether each was found with the checksum st holds. A key st
// holds is valid UTF-8, so its JSON string is the key itself.
func readLiveValues(ctx context.Context, q queryer, st *repoState, keys []string) (map[string]string, bool, error) {
	names, err := json.Marshal(keys)
	if err != nil {
		return nil, false, err
	}
	rows, err := q.QueryContext(ctx, selectValuesOf, st.id, string(names))
	if err != nil {
		return nil, false, err
	}
	defer rows.Close()
	values := make(map[string]string, len(keys))
	same := true
	for rows.Next() {
		var key, sum string
		var value []byte
		if err := rows.Scan(&key, &sum, &value); err != nil {
			return nil, false, err
		}
		if want, _ := st.EntryChecksum(key); sum != want {
			same = false
		}
		values[key] = string(value)
	}
	return values, same && len(values) == len(keys), rows.Err()
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
