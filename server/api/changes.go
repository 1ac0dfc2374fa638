package api

import (
	"errors"
	"fmt"
	"maps"
)

// ErrChangesMismatch is returned by HashesResponse.Apply when the changes
// applied to what the client held do not make the answer's repo checksum:
// the client held something else at that checksum.
var ErrChangesMismatch = errors.New("the changes do not make the answer's repo checksum")

// Apply returns the whole answer that the changes h (a change wait's
// answer with ChangedSince set, PROTOCOL.md section 18) make of held, the
// whole hashes the client holds at h.ChangedSince. A key h names live
// leaves held's tombstones and a key h names deleted leaves its live
// entries. The result is checked against h's repo checksum; held is not
// modified. An h without ChangedSince is whole and returned as it is.
func (h HashesResponse) Apply(held HashesResponse) (HashesResponse, error) {
	if h.ChangedSince == "" {
		return h, nil
	}
	if h.ChangedSince != held.Checksum {
		return HashesResponse{}, fmt.Errorf("changes since %s applied to hashes at %s", h.ChangedSince, held.Checksum)
	}
	sums := maps.Clone(held.EntryChecksums)
	if sums == nil {
		sums = make(map[string]string, len(h.EntryChecksums))
	}
	deleted := maps.Clone(held.DeletedEntries)
	if deleted == nil {
		deleted = make(map[string]int64, len(h.DeletedEntries))
	}
	for k, sum := range h.EntryChecksums {
		sums[k] = sum
		delete(deleted, k)
	}
	for k, at := range h.DeletedEntries {
		deleted[k] = at
		delete(sums, k)
	}
	if got := RepoChecksum(sums, deleted); got != h.Checksum {
		return HashesResponse{}, fmt.Errorf("%w: %s, not %s", ErrChangesMismatch, got, h.Checksum)
	}
	out := h
	out.EntryChecksums, out.DeletedEntries, out.ChangedSince = sums, deleted, ""
	return out, nil
}
