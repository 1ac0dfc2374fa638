package postgres

import (
	"slices"

	"github.com/teammemd/teammemd/server/store"
)

// sortedKeys returns st's keys, live and tombstoned, in byte order: the
// order of the repo checksum's input. A state read from the database sorts
// them once; a state a write made has them from the state before it.
func (st *repoState) sortedKeys() []string {
	if st.keys == nil {
		keys := make([]string, 0, len(st.live)+len(st.deleted))
		for k := range st.live {
			keys = append(keys, k)
		}
		for k := range st.deleted {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		st.keys = keys
	}
	return st.keys
}

// nextKeys returns keys, sorted, with added put in order and dropped taken
// out; keys is not modified. added holds keys not in keys.
func nextKeys(keys, added, dropped []string) []string {
	gone := make(map[string]bool, len(dropped))
	for _, k := range dropped {
		gone[k] = true
	}
	slices.Sort(added)
	out := make([]string, 0, len(keys)+len(added))
	put := func(k string) {
		if !gone[k] {
			out = append(out, k)
		}
	}
	for _, k := range keys {
		for len(added) > 0 && added[0] < k {
			put(added[0])
			added = added[1:]
		}
		put(k)
	}
	for _, k := range added {
		put(k)
	}
	return out
}

// keyLines are a state's keys, in byte order, as the input of its repo
// checksum.
type keyLines struct {
	keys []string
	live map[string]string
}

func (l keyLines) Len() int { return len(l.keys) }

func (l keyLines) Line(i int) (key, sum string, live bool) {
	sum, live = l.live[l.keys[i]]
	return l.keys[i], sum, live
}

// setChecksum sets st's keys to keys and its checksum to the repo checksum
// of PROTOCOL.md section 3 over them, as api.RepoChecksum computes it from
// st's maps. prev is the state st was built from; st's first unchanged
// keys, and their lines, are prev's, so the hash resumes from prev's saved
// states.
func (st *repoState) setChecksum(keys []string, prev *repoState, unchanged int) error {
	sum, marks, err := store.SumLines(keyLines{keys: keys, live: st.live}, prev.marks, unchanged)
	if err != nil {
		return err
	}
	st.keys, st.checksum, st.marks = keys, sum, marks
	return nil
}

// unchangedLines is how many of keys, the keys after a write in byte order,
// come before every key the write touched: changed, the write plan's
// sorted keys it upserted or deleted, and dropped, the deletion markers it
// compacted away. Their lines and places are those of the state before
// the write.
func unchangedLines(keys, changed, dropped []string) int {
	touched := slices.Concat(changed[:min(len(changed), 1)], dropped)
	if len(touched) == 0 {
		return len(keys)
	}
	n, _ := slices.BinarySearch(keys, slices.Min(touched))
	return n
}
