package server

import (
	"maps"
	"sync"

	"github.com/teammemd/teammemd/server/api"
)

// A change wait's answer with the changes since (PROTOCOL.md section 18)
// carries the values of the keys it names live when this server made the
// one commit between the two checksums and still holds what it wrote: the
// client then needs no pull for them. The server keeps the values of its
// last few commits for that, each at most api.WaitValueBytes: a few
// notes' worth.

// recentCommits is how many commits' values are kept, across repos.
const recentCommits = 32

// recentValues holds the values of the server's last commits, each under
// the repo checksum it made. At most recentCommits*api.WaitValueBytes of
// values are held.
type recentValues struct {
	mu   sync.Mutex
	ring [recentCommits]committedValues
	next int
}

// committedValues is what one commit wrote to repo, making its checksum.
type committedValues struct {
	repo, checksum string
	values         map[string]string
}

// put keeps the values entries of a commit that made repo's checksum,
// unless they are over api.WaitValueBytes, in place of the oldest.
func (rv *recentValues) put(repo, checksum string, entries map[string]string) {
	if len(entries) == 0 || valueBytes(entries) > api.WaitValueBytes {
		return
	}
	// A copy: the writer's map is its own.
	kept := committedValues{repo: repo, checksum: checksum, values: maps.Clone(entries)}
	rv.mu.Lock()
	defer rv.mu.Unlock()
	rv.ring[rv.next] = kept
	rv.next = (rv.next + 1) % recentCommits
}

// valuesFor returns the value of every key of sums, each with that entry
// checksum, as the commit that made repo's checksum wrote them; nil when
// no kept commit made it or it did not write each key so.
func (rv *recentValues) valuesFor(repo, checksum string, sums map[string]string) map[string]string {
	if len(sums) == 0 {
		return nil
	}
	written := rv.find(repo, checksum)
	if written == nil {
		return nil
	}
	out := make(map[string]string, len(sums))
	for k, sum := range sums {
		v, ok := written[k]
		if !ok || api.EntryChecksum(v) != sum {
			return nil
		}
		out[k] = v
	}
	return out
}

// find returns the values the commit that made repo's checksum wrote, or
// nil when none kept did.
func (rv *recentValues) find(repo, checksum string) map[string]string {
	rv.mu.Lock()
	defer rv.mu.Unlock()
	for _, c := range rv.ring {
		if c.repo == repo && c.checksum == checksum {
			return c.values
		}
	}
	return nil
}

// valueBytes is the size of entries' keys and values.
func valueBytes(entries map[string]string) int {
	n := 0
	for k, v := range entries {
		n += len(k) + len(v)
	}
	return n
}
