package api

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"slices"
)

// Held is the whole hashes a client holds at one repo checksum, made
// ready for the changes a change wait answers with (PROTOCOL.md section
// 18): its own copy of their maps, and the lines of their repo checksum
// (section 3) in key order, in one piece of memory. Applying changes to
// it copies and sorts nothing: it hashes those lines with the changed
// keys' lines in their place and sets the changed keys in its maps. A
// client makes one while its wait is parked, which takes the cost that
// grows with the repo's size off the answer's way.
//
// A Held is used up by the Apply that succeeds, whose answer takes its
// maps; it is not safe for concurrent use.
type Held struct {
	checksum string
	sums     map[string]string
	deleted  map[string]int64
	keys     []string // the keys of lines, in byte order
	lines    []byte   // the repo checksum's input (AppendRepoLine)
	starts   []int    // where each key's line starts; one more: len(lines)
}

// otherBase is the error of changes since one repo checksum applied to
// hashes at another.
func otherBase(since, at string) error {
	return fmt.Errorf("changes since %s applied to hashes at %s", since, at)
}

// errHeldUsed is the error of an Apply to a Held an earlier Apply used up.
var errHeldUsed = errors.New("held hashes already applied")

// NewHeld returns h made ready for Apply. h is not modified and shares
// nothing with the result but its strings.
func NewHeld(h HashesResponse) *Held {
	p := &Held{checksum: h.Checksum, sums: maps.Clone(h.EntryChecksums), deleted: maps.Clone(h.DeletedEntries)}
	if p.sums == nil {
		p.sums = map[string]string{}
	}
	if p.deleted == nil {
		p.deleted = map[string]int64{}
	}
	p.keys = repoKeys(p.sums, p.deleted)
	size := 0
	for _, k := range p.keys {
		size += len(k) + 2 + max(len(p.sums[k]), len("deleted"))
	}
	p.lines = make([]byte, 0, size)
	p.starts = make([]int, 0, len(p.keys)+1)
	for _, k := range p.keys {
		p.starts = append(p.starts, len(p.lines))
		sum, live := p.sums[k]
		p.lines = AppendRepoLine(p.lines, k, sum, live)
	}
	p.starts = append(p.starts, len(p.lines))
	return p
}

// Apply returns the whole answer that the changes c (a change wait's
// answer with ChangedSince set) make of the hashes p holds, checked
// against c's repo checksum, as HashesResponse.Apply does. The answer
// takes p's maps: once Apply succeeds, p is used up. On an error p is as
// it was. A c without ChangedSince is whole and returned as it is.
func (p *Held) Apply(c HashesResponse) (HashesResponse, error) {
	if c.ChangedSince == "" {
		return c, nil
	}
	if p.sums == nil { // NewHeld makes it; a successful Apply takes it
		return HashesResponse{}, errHeldUsed
	}
	if c.ChangedSince != p.checksum {
		return HashesResponse{}, otherBase(c.ChangedSince, p.checksum)
	}
	if got := p.checksumWith(c); got != c.Checksum {
		return HashesResponse{}, fmt.Errorf("%w: %s, not %s", ErrChangesMismatch, got, c.Checksum)
	}
	for k, sum := range c.EntryChecksums {
		p.sums[k] = sum
		delete(p.deleted, k)
	}
	for k, at := range c.DeletedEntries {
		p.deleted[k] = at
		delete(p.sums, k)
	}
	out := c
	out.EntryChecksums, out.DeletedEntries, out.ChangedSince = p.sums, p.deleted, ""
	*p = Held{}
	return out, nil
}

// checksumWith is the repo checksum of p's hashes with the changes c
// applied: p's lines in order, each changed key's line put in place of
// its old one or where it sorts, a deleted key's as a tombstone's.
func (p *Held) checksumWith(c HashesResponse) string {
	h := sha256.New()
	buf := make([]byte, 0, 256)
	next := 0 // the first of p's lines not hashed yet
	for _, k := range repoKeys(c.EntryChecksums, c.DeletedEntries) {
		i, found := slices.BinarySearch(p.keys, k)
		h.Write(p.lines[p.starts[next]:p.starts[i]])
		next = i
		if found {
			next = i + 1
		}
		_, dead := c.DeletedEntries[k]
		sum := c.EntryChecksums[k]
		buf = AppendRepoLine(buf[:0], k, sum, !dead)
		h.Write(buf)
	}
	h.Write(p.lines[p.starts[next]:])
	return ChecksumPrefix + hex.EncodeToString(h.Sum(nil))
}
