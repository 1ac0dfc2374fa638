package postgres

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"

	"github.com/teammemd/teammemd/server/api"
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

// setChecksum sets st's keys to keys and its checksum to the repo checksum
// of PROTOCOL.md section 3 over them, as api.RepoChecksum computes it from
// st's maps.
func (st *repoState) setChecksum(keys []string) {
	st.keys = keys
	h := sha256.New()
	buf := make([]byte, 0, 256)
	for _, k := range keys {
		sum, live := st.live[k]
		buf = api.AppendRepoLine(buf[:0], k, sum, live)
		h.Write(buf)
	}
	st.checksum = api.ChecksumPrefix + hex.EncodeToString(h.Sum(nil))
}
