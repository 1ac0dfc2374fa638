package api

import (
	"errors"
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
// modified. An h without ChangedSince is whole and returned as it is. A
// client that can make its Held before the answer comes applies h to
// that instead (NewHeld).
func (h HashesResponse) Apply(held HashesResponse) (HashesResponse, error) {
	if h.ChangedSince == "" {
		return h, nil
	}
	if h.ChangedSince != held.Checksum {
		return HashesResponse{}, otherBase(h.ChangedSince, held.Checksum)
	}
	return NewHeld(held).Apply(h)
}
