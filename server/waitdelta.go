package server

import (
	"net/http"
	"net/url"
	"time"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/store"
)

// deltaParam parses delta=1 (extension, PROTOCOL.md section 18): the
// change wait's client holds the whole hashes at its If-None-Match. It is
// an error without wait, with any other value, or given twice.
func deltaParam(q url.Values, wait time.Duration) (bool, error) {
	v, ok := q[api.ParamDelta]
	switch {
	case !ok:
		return false, nil
	case wait <= 0:
		return false, api.NewError(http.StatusBadRequest, api.CodeInvalidRequest, "delta applies only beside wait")
	case len(v) != 1 || v[0] != "1":
		return false, api.NewError(http.StatusBadRequest, api.CodeInvalidRequest, "delta must be given once, as 1")
	}
	return true, nil
}

// changesSince returns cur with only the keys whose checksum or tombstone
// differs from prev's, for an answer relative to prev.Checksum. It
// reports false when a key of prev is in neither of cur's maps (its
// tombstone was compacted away), which changes cannot say.
func changesSince(prev, cur store.Snapshot) (store.Snapshot, bool) {
	for k := range prev.EntryChecksums {
		if !inSnapshot(cur, k) {
			return store.Snapshot{}, false
		}
	}
	for k := range prev.Deleted {
		if !inSnapshot(cur, k) {
			return store.Snapshot{}, false
		}
	}
	out := noChanges(cur)
	for k := range cur.EntryChecksums {
		addIfChanged(&out, prev, cur, k)
	}
	for k := range cur.Deleted {
		addIfChanged(&out, prev, cur, k)
	}
	return out, true
}

// changesOfWrite is changesSince for cur made from prev by one write
// that changed keys alone (store.Result.Changed) and compacted no
// deletion marker: no other key can differ, so no other is looked at.
func changesOfWrite(prev, cur store.Snapshot, keys []string) (store.Snapshot, bool) {
	out := noChanges(cur)
	for _, k := range keys {
		if !inSnapshot(cur, k) {
			if inSnapshot(prev, k) {
				return store.Snapshot{}, false
			}
			continue
		}
		addIfChanged(&out, prev, cur, k)
	}
	return out, true
}

// noChanges is cur naming no key.
func noChanges(cur store.Snapshot) store.Snapshot {
	out := cur
	out.EntryChecksums = map[string]string{}
	out.Deleted = map[string]int64{}
	return out
}

// addIfChanged adds key k of cur to out when its checksum or tombstone
// differs from prev's: a live key with another checksum or not live
// before, a deleted one (not live now) with another deletion time or
// not deleted, or live, before.
func addIfChanged(out *store.Snapshot, prev, cur store.Snapshot, k string) {
	if sum, live := cur.EntryChecksums[k]; live {
		if old, ok := prev.EntryChecksums[k]; !ok || old != sum {
			out.EntryChecksums[k] = sum
		}
		return
	}
	if at, dead := cur.Deleted[k]; dead {
		if old, ok := prev.Deleted[k]; !ok || old != at || hasLive(prev, k) {
			out.Deleted[k] = at
		}
	}
}

func inSnapshot(s store.Snapshot, k string) bool {
	if _, ok := s.EntryChecksums[k]; ok {
		return true
	}
	_, ok := s.Deleted[k]
	return ok
}

func hasLive(s store.Snapshot, k string) bool {
	_, ok := s.EntryChecksums[k]
	return ok
}

// writeWaitAnswer sends what a change wait that saw the repo change
// answers: the keys changed since prev (the repo at the wait's checksum,
// as read while the wait held; nil when not read) when the client asked
// for them and they can be said, else the whole hashes of cur.
func (s *Server) writeWaitAnswer(w http.ResponseWriter, prev *store.Snapshot, cur store.Snapshot, delta bool) {
	if delta && prev != nil {
		if d, ok := s.changes(*prev, cur); ok {
			s.writeChanges(w, d, *prev)
			return
		}
	}
	s.writeSnapshot(w, cur, true)
}

// changes is changesSince, worked out from the keys the write between
// prev and cur changed when this server made that one write, kept its
// keys (recentValues) and compacted no marker with it: a save into a
// large repo is answered without a look at every key.
func (s *Server) changes(prev, cur store.Snapshot) (store.Snapshot, bool) {
	if cur.Version == prev.Version+1 && cur.CompactedThrough == prev.CompactedThrough {
		if keys, ok := s.values.changedKeys(cur.Repo, cur.Checksum, cur.Version); ok {
			return changesOfWrite(prev, cur, keys)
		}
	}
	return changesSince(prev, cur)
}

// writeChanges sends d, the changes since the repo as prev holds it.
func (s *Server) writeChanges(w http.ResponseWriter, d store.Snapshot, prev store.Snapshot) {
	since := prev.Checksum
	var written *api.Written
	if d.Version == prev.Version+1 {
		written = s.values.writtenFor(d.Repo, since, d.Checksum, d.Version)
	}
	w.Header().Set("ETag", api.ETag(d.Checksum))
	s.writeJSON(w, http.StatusOK, api.HashesResponse{
		OrganizationID: s.org, Repo: wireRepo(d.Repo), Version: d.Version,
		LastModified: d.LastModified.UTC(), Checksum: d.Checksum,
		EntryChecksums: d.EntryChecksums, DeletedEntries: d.Deleted,
		CompactedThrough: d.CompactedThrough, ChangedSince: since,
		Entries: s.values.valuesFor(d.Repo, d.Checksum, d.EntryChecksums),
		Written: written,
	})
}
