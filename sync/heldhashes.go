package memsync

import (
	"maps"

	"github.com/teammemd/teammemd/server/api"
)

// HashesFrom returns the server's whole hashes at the checksum the engine
// last synced to, made from held, the whole hashes at an earlier checksum
// (a change wait's answer; none when its EntryChecksums are nil), with
// each key set as the engine's last saved state knows it on the server.
// It reports false when the engine has not synced or the result does not
// come to that checksum (the state knows of a deletion the server's
// markers no longer show, or the server compacted markers held shows); it
// is exact when true, but for the time of a deletion held does not show,
// which is the state's record of it (the engine's own clock for its own
// deletions; times are not part of a checksum). It is safe to call while
// the engine runs.
func (e *Engine) HashesFrom(held api.HashesResponse) (api.HashesResponse, bool) {
	st := e.synced.Load()
	if st == nil || st.LastKnownChecksum == "" {
		return api.HashesResponse{}, false
	}
	var sums map[string]string
	var dead map[string]int64
	if held.EntryChecksums != nil {
		if held.Checksum == st.LastKnownChecksum {
			return held, true
		}
		sums, dead = maps.Clone(held.EntryChecksums), maps.Clone(held.DeletedEntries)
	} else {
		sums, dead = make(map[string]string, len(st.ServerChecksums)), maps.Clone(st.Tombstones)
	}
	if dead == nil {
		dead = map[string]int64{}
	}
	for k, sum := range st.ServerChecksums {
		if sums[k] != sum {
			sums[k] = sum
			delete(dead, k)
		}
	}
	for k := range sums {
		if _, live := st.ServerChecksums[k]; !live {
			delete(sums, k)
			dead[k] = st.Tombstones[k]
		}
	}
	if api.RepoChecksum(sums, dead) != st.LastKnownChecksum {
		return api.HashesResponse{}, false
	}
	return api.HashesResponse{Checksum: st.LastKnownChecksum, EntryChecksums: sums, DeletedEntries: dead}, true
}
