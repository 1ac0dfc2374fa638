package sqlite

import (
	"maps"
	"sync"
	"time"

	"github.com/teammemd/teammemd/server/store"
)

// repoState is the checksum view of one repo at one version: every key,
// live or tombstoned, sorted in byte order so a write updates the checksum
// input without sorting or walking a map. It is never modified once built:
// a write builds the next one.
type repoState struct {
	id           int64 // 0 for a repo never written
	slug         string
	version      int64
	lastModified time.Time
	checksum     string
	// compactedThrough is the version of the last write that compacted
	// deletion markers.
	compactedThrough int64
	lines            []entryLine    // sorted by key, one per key
	live             int            // how many lines are live
	marks            store.SumMarks // saved hash states of the checksum input

	mapsOnce    sync.Once // builds the map views on the first snapshot
	liveSums    map[string]string
	deletedTime map[string]int64
}

func (st *repoState) size() int { return len(st.lines) }

// Checksum implements store.KeyView.
func (st *repoState) Checksum() string { return st.checksum }

// LiveCount implements store.KeyView.
func (st *repoState) LiveCount() int { return st.live }

// EntryChecksum implements store.KeyView.
func (st *repoState) EntryChecksum(key string) (string, bool) {
	l, ok := findLine(st.lines, key)
	return l.sum, ok && l.live()
}

// setLines sets st's lines, which must be sorted, and counts the live ones.
func (st *repoState) setLines(lines []entryLine) {
	st.lines, st.live = lines, 0
	for _, l := range lines {
		if l.live() {
			st.live++
		}
	}
}

// snapshot returns a copy the caller may keep and modify.
func (st *repoState) snapshot() store.Snapshot {
	live, deleted := st.maps()
	return store.Snapshot{
		Repo:           st.slug,
		Version:        st.version,
		LastModified:   st.lastModified,
		Checksum:       st.checksum,
		EntryChecksums: maps.Clone(live),
		Deleted:        maps.Clone(deleted),

		CompactedThrough: st.compactedThrough,
	}
}

// maps returns the state's keys as maps, built on the first call; callers
// must not modify them.
func (st *repoState) maps() (map[string]string, map[string]int64) {
	st.mapsOnce.Do(func() {
		st.liveSums = make(map[string]string, st.live)
		st.deletedTime = make(map[string]int64, len(st.lines)-st.live)
		for _, l := range st.lines {
			if l.live() {
				st.liveSums[l.key] = l.sum
			} else {
				st.deletedTime[l.key] = l.deletedAt
			}
		}
	})
	return st.liveSums, st.deletedTime
}

func (st *repoState) result(changed []string) store.Result {
	if changed == nil {
		changed = []string{}
	}
	return store.Result{Version: st.version, LastModified: st.lastModified, Checksum: st.checksum, Changed: changed}
}

// maxCachedEntries bounds the cache by the number of keys it holds in all
// repos (about 100 bytes each).
const maxCachedEntries = 500_000

// stateCache keeps the newest known repoState of each repo. A state is
// only used when its version equals the version read from the database in
// the same call, so writes by other processes never serve stale data.
type stateCache struct {
	mu      sync.Mutex
	max     int
	entries int
	repos   map[string]*repoState
}

func newStateCache(max int) *stateCache {
	return &stateCache{max: max, repos: map[string]*repoState{}}
}

// get returns the cached state of slug at version, or nil.
func (c *stateCache) get(slug string, version int64) *repoState {
	c.mu.Lock()
	defer c.mu.Unlock()
	if st := c.repos[slug]; st != nil && st.version == version {
		return st
	}
	return nil
}

// latest returns the newest cached state of slug, whatever its version,
// or nil.
func (c *stateCache) latest(slug string) *repoState {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.repos[slug]
}

// put caches st unless a newer version is cached, evicting other repos when
// the cache is over its bound.
func (c *stateCache) put(st *repoState) {
	if st.size() > c.max {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old := c.repos[st.slug]; old != nil {
		if old.version > st.version {
			return
		}
		c.entries -= old.size()
	}
	for slug, other := range c.repos {
		if c.entries+st.size() <= c.max {
			break
		}
		if slug != st.slug {
			delete(c.repos, slug)
			c.entries -= other.size()
		}
	}
	c.repos[st.slug] = st
	c.entries += st.size()
}
