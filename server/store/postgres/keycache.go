package postgres

import "sync"

// maxCachedKeys bounds how many keys, live and deleted, of all repos the
// key cache holds.
const maxCachedKeys = 200_000

// keyCache keeps the keys of the repos this Store wrote last, so a write
// that finds a repo's row as this Store left it need not read the repo's
// entries again. A cached state stands for the repo only while the row
// still holds its id, version, checksum and compaction mark: every change
// to a repo's entries, by any replica, a copy or a purge, changes its
// version or its checksum with them. States are never changed once built
// (a write clones the maps it changes), so the cache hands them out as
// they are.
type keyCache struct {
	mu    sync.Mutex
	repos map[string]*repoState
	keys  int
}

// get returns the cached keys of the repo whose locked row is row, or
// false when the cache holds none for the row as it is.
func (c *keyCache) get(row *repoState) (*repoState, bool) {
	c.mu.Lock()
	st := c.repos[row.slug]
	c.mu.Unlock()
	if st == nil || st.id != row.id || st.version != row.version || st.checksum != row.checksum ||
		st.compactedThrough != row.compactedThrough {
		return nil, false
	}
	return st, true
}

// latest returns the cached state of slug, as this Store last wrote it,
// or nil; whether it is still the repo's is for the caller to check.
func (c *keyCache) latest(slug string) *repoState {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.repos[slug]
}

// put keeps st, a repo's state as a committed write left it, dropping
// other repos' states while the cache holds too many keys.
func (c *keyCache) put(st *repoState) {
	n := len(st.live) + len(st.deleted)
	if n > maxCachedKeys {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.repos == nil {
		c.repos = map[string]*repoState{}
	}
	if old := c.repos[st.slug]; old != nil {
		c.keys -= len(old.live) + len(old.deleted)
	}
	for slug, old := range c.repos {
		if c.keys+n <= maxCachedKeys {
			break
		}
		if slug != st.slug {
			c.keys -= len(old.live) + len(old.deleted)
			delete(c.repos, slug)
		}
	}
	c.repos[st.slug] = st
	c.keys += n
}
