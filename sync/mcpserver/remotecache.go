package mcpserver

import (
	"context"
	"sync"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/sync/memindex"
)

// maxCachedRepos bounds how many repos' indexes a Remote keeps.
const maxCachedRepos = 256

// repoSnap is one repo as of one version: its checksum, the precondition
// of the next write, and its index. The index is shared with later
// snaps of the repo, and may be newer than the checksum; a write made on
// an older checksum is refused by the store, so that is safe.
type repoSnap struct {
	repo     string
	version  int64
	checksum string
	index    *memindex.Index
}

// repoCache keeps an index of each repo in use, read again once the
// server says the repo may have changed.
type repoCache struct {
	mu    sync.Mutex
	max   int
	repos map[string]*cachedRepo
}

// cachedRepo is one repo's index and what tells it is stale.
type cachedRepo struct {
	mu      sync.Mutex // one read of the repo at a time
	snap    *repoSnap
	changed <-chan struct{}
	release func()
}

func newRepoCache(max int) *repoCache {
	return &repoCache{max: max, repos: map[string]*cachedRepo{}}
}

// current returns repo's snap, read again from st when the repo may
// have changed since, or when force is set.
func (c *repoCache) current(ctx context.Context, st Store, repo string, force bool) (*repoSnap, error) {
	cr := c.entry(repo)
	cr.mu.Lock()
	defer cr.mu.Unlock()
	if cr.snap != nil && !force {
		select {
		case <-cr.changed:
		default:
			return cr.snap, nil
		}
	}
	return cr.refresh(ctx, st, repo)
}

// entry returns repo's entry, making room for it.
func (c *repoCache) entry(repo string) *cachedRepo {
	c.mu.Lock()
	defer c.mu.Unlock()
	if cr := c.repos[repo]; cr != nil {
		return cr
	}
	for r, old := range c.repos {
		if len(c.repos) < c.max {
			break
		}
		old.forget()
		delete(c.repos, r)
	}
	cr := &cachedRepo{}
	c.repos[repo] = cr
	return cr
}

// forget stops listening for an evicted repo's changes.
func (cr *cachedRepo) forget() {
	cr.mu.Lock()
	defer cr.mu.Unlock()
	if cr.release != nil {
		cr.release()
		cr.release, cr.changed = nil, nil
	}
	cr.snap = nil
}

// refresh reads the repo and brings the index in line with it; it
// listens for changes first, so that none is missed.
func (cr *cachedRepo) refresh(ctx context.Context, st Store, repo string) (*repoSnap, error) {
	changed, release := st.Changed(repo)
	full, err := st.Notes(ctx, repo)
	if err != nil {
		release()
		return nil, err
	}
	if cr.release != nil {
		cr.release()
	}
	cr.changed, cr.release = changed, release
	index := memindex.New()
	if cr.snap != nil {
		index = cr.snap.index
	}
	update(index, full)
	cr.snap = &repoSnap{repo: repo, version: full.Version, checksum: full.Checksum, index: index}
	return cr.snap, nil
}

// update brings index in line with full: each entry whose checksum
// differs is indexed again, as modified at the repo's last write, and
// each entry gone is dropped.
func update(index *memindex.Index, full api.FullResponse) {
	for k, v := range full.Content.Entries {
		if n, _, ok := index.Get(k); !ok || n.Sum != full.Content.EntryChecksums[k] {
			index.Put(k, []byte(v), full.LastModified)
		}
	}
	for _, n := range index.Notes("") {
		if _, ok := full.Content.Entries[n.Key]; !ok {
			index.Remove(n.Key)
		}
	}
}
