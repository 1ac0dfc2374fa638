package memsync

import (
	"context"
	"errors"
	"net/http"

	"github.com/teammemd/teammemd/server/api"
)

// recover handles a failed batch chain before the next round: 412 brings
// the server's changes in, a too-many-entries 413 teaches the push the
// entry cap, a refusal pinned on one key leaves that key out. Any other
// error ends the push.
func (s *session) recover(ctx context.Context, err error) error {
	var rej *rejectedError
	if errors.As(err, &rej) {
		s.log.Warn("server refused an entry; leaving it out", "key", rej.key, "err", err)
		return nil
	}
	var ae *api.Error
	if !errors.As(err, &ae) {
		return err
	}
	switch {
	case ae.Status == http.StatusPreconditionFailed:
		s.log.Info("repo changed during push; reconciling")
		return s.reconcile(ctx)
	case ae.Code == api.CodeTooManyEntries:
		limit, ok := ae.IntDetail("max_entries")
		if !ok || limit <= 0 {
			return err
		}
		s.maxEntries = limit
		s.log.Warn("server entry cap reached", "maxEntries", limit)
		return nil
	}
	return err
}

// reconcile probes the server's hashes after a 412. When the probe shows
// only what this client already holds, it replaces serverChecksums; when a
// teammate changed, added or deleted a synced key, a full pull applies it
// (server wins, a local edit kept as a conflict copy), since a conflict
// copy needs the server's content and a change left unpulled would be
// hidden behind the new checksum.
func (s *session) reconcile(ctx context.Context) error {
	if s.storeChanged() {
		return s.pull(ctx) // the 412 named a new store identity: re-baseline
	}
	h, err := s.remote.Hashes(ctx, s.cfg.Repo)
	if s.forgetIfUnknown(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if !s.unseenChanges(h) {
		s.st.ServerChecksums = validSums(h.EntryChecksums)
		s.st.Tombstones = h.DeletedEntries
		s.st.LastKnownChecksum = h.Checksum
		s.st.LastKnownVersion = h.Version
		return nil
	}
	full, _, err := s.remote.Get(ctx, s.cfg.Repo, "")
	if err != nil {
		return err
	}
	return s.applyFull(full)
}

// unseenChanges reports whether the server holds a synced key in a state
// this client has not applied locally.
func (s *session) unseenChanges(h api.HashesResponse) bool {
	for k, sum := range h.EntryChecksums {
		if api.IsSyncableKey(k) && api.ValidateKey(k, api.Limits{}) == nil && sum != s.st.Base[k] {
			return true
		}
	}
	for k := range s.st.Base {
		if _, live := h.EntryChecksums[k]; !live {
			return true
		}
	}
	return false
}

func validSums(in map[string]string) map[string]string {
	out := make(map[string]string, len(in))
	for k, v := range in {
		if api.ValidateKey(k, api.Limits{}) == nil {
			out[k] = v
		}
	}
	return out
}

// rejectedError is a permanent refusal pinned on one key, which the next
// round leaves out.
type rejectedError struct {
	key string
	err error
}

func (e *rejectedError) Error() string { return e.err.Error() }
func (e *rejectedError) Unwrap() error { return e.err }
