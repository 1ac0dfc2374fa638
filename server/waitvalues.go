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
// notes' worth. It keeps each commit's revisions too, which the answer
// names (PROTOCOL.md section 20) when the two checksums are one version
// apart.

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

// committedValues is what one commit wrote to repo, making its checksum
// at version: its values, when within api.WaitValueBytes, and its
// revisions (nil when past api.MaxWrittenKeyBytes).
type committedValues struct {
	repo, checksum string
	version        int64
	values         map[string]string
	written        *api.Written
}

// put keeps what a commit that made repo's checksum at version wrote, in
// place of the oldest: entries unless they are over api.WaitValueBytes,
// and written.
func (rv *recentValues) put(repo, checksum string, version int64, entries map[string]string, written *api.Written) {
	kept := committedValues{repo: repo, checksum: checksum, version: version, written: written}
	if len(entries) > 0 && valueBytes(entries) <= api.WaitValueBytes {
		kept.values = maps.Clone(entries) // a copy: the writer's map is its own
	}
	if kept.values == nil && written == nil {
		return
	}
	rv.mu.Lock()
	defer rv.mu.Unlock()
	rv.ring[rv.next] = kept
	rv.next = (rv.next + 1) % recentCommits
}

// writtenFor names the revisions of the commit that made repo's checksum
// at version from since, the checksum at the version before; nil when no
// kept commit made it so, or it was past the bound of its names.
func (rv *recentValues) writtenFor(repo, since, checksum string, version int64) *api.Written {
	w := rv.writtenAt(repo, checksum, version)
	if w == nil {
		return nil
	}
	out := *w
	out.Since = since
	return &out
}

// changedKeys returns the keys the commit that made repo's checksum at
// version changed, false when no kept commit made it so or it was past
// the bound of its names.
func (rv *recentValues) changedKeys(repo, checksum string, version int64) ([]string, bool) {
	if w := rv.writtenAt(repo, checksum, version); w != nil {
		return w.Keys, true
	}
	return nil, false
}

// writtenAt is the revisions of the kept commit that made repo's
// checksum at version, nil when there are none.
func (rv *recentValues) writtenAt(repo, checksum string, version int64) *api.Written {
	c := rv.find(repo, checksum)
	if c == nil || c.version != version {
		return nil
	}
	return c.written
}

// valuesFor returns the value of every key of sums, each with that entry
// checksum, as the commit that made repo's checksum wrote them; nil when
// no kept commit made it or it did not write each key so.
func (rv *recentValues) valuesFor(repo, checksum string, sums map[string]string) map[string]string {
	if len(sums) == 0 {
		return nil
	}
	c := rv.find(repo, checksum)
	if c == nil || c.values == nil {
		return nil
	}
	out := make(map[string]string, len(sums))
	for k, sum := range sums {
		v, ok := c.values[k]
		if !ok || api.EntryChecksum(v) != sum {
			return nil
		}
		out[k] = v
	}
	return out
}

// find returns what the commit that made repo's checksum wrote, or nil
// when none kept did.
func (rv *recentValues) find(repo, checksum string) *committedValues {
	rv.mu.Lock()
	defer rv.mu.Unlock()
	for i := range rv.ring {
		if c := rv.ring[i]; c.repo == repo && c.checksum == checksum {
			return &c
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
