package auth

import (
	"sync"
	"time"
)

// verdictCache is a bounded cache of good verdicts keyed by a hash of the
// credential, never the credential itself. When full it drops the expired
// entries and, if none had expired, everything.
type verdictCache[V any] struct {
	mu  sync.Mutex
	m   map[string]cached[V]
	max int
}

type cached[V any] struct {
	v       V
	expires time.Time
}

func newVerdictCache[V any](max int) *verdictCache[V] {
	return &verdictCache[V]{m: map[string]cached[V]{}, max: max}
}

// get returns the entry for key while it is fresh at now.
func (c *verdictCache[V]) get(key string, now time.Time) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[key]
	if ok && now.Before(e.expires) {
		return e.v, true
	}
	if ok {
		delete(c.m, key)
	}
	var zero V
	return zero, false
}

// put keeps v for key until expires.
func (c *verdictCache[V]) put(key string, v V, expires time.Time, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= c.max {
		for k, e := range c.m {
			if !now.Before(e.expires) {
				delete(c.m, k)
			}
		}
		if len(c.m) >= c.max {
			clear(c.m)
		}
	}
	c.m[key] = cached[V]{v: v, expires: expires}
}
