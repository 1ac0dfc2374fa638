package server

import (
	"container/list"
	"sync"
)

// maxCachedBodyBytes bounds the memory of encoded hash probe bodies.
const maxCachedBodyBytes = 32 << 20

// bodyCache keeps the encoded hashes body of recently probed repos, keyed by
// repo and version (a version is never reused, so a body never goes stale),
// so a probe of an unchanged large repo costs no JSON encoding. It evicts
// the least recently used bodies beyond its byte budget.
type bodyCache struct {
	mu    sync.Mutex
	max   int
	size  int
	items map[string]*list.Element
	lru   list.List // front: most recently used *cachedBody
}

type cachedBody struct {
	repo     string
	version  int64
	checksum string
	body     []byte
}

func newBodyCache(maxBytes int) *bodyCache {
	return &bodyCache{max: maxBytes, items: make(map[string]*list.Element)}
}

// get returns the body cached for repo at version with checksum.
func (c *bodyCache) get(repo string, version int64, checksum string) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[repo]
	if !ok {
		return nil, false
	}
	cb := el.Value.(*cachedBody)
	if cb.version != version || cb.checksum != checksum {
		return nil, false
	}
	c.lru.MoveToFront(el)
	return cb.body, true
}

// put caches body for repo at version, replacing an older one. A body over
// the whole budget is not cached.
func (c *bodyCache) put(repo string, version int64, checksum string, body []byte) {
	if len(body) > c.max {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[repo]; ok {
		c.remove(el)
	}
	c.items[repo] = c.lru.PushFront(&cachedBody{repo: repo, version: version, checksum: checksum, body: body})
	c.size += len(body)
	for c.size > c.max {
		c.remove(c.lru.Back())
	}
}

func (c *bodyCache) remove(el *list.Element) {
	cb := c.lru.Remove(el).(*cachedBody)
	delete(c.items, cb.repo)
	c.size -= len(cb.body)
}
