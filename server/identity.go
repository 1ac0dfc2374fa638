package server

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// Store identity reads for the response header.
const (
	// identityRefresh is how long a store identity read is used before it
	// is read again, so "teammemd admin new-store-id" run beside a running
	// server shows within this long.
	identityRefresh = 5 * time.Second
	// identityTimeout bounds one read.
	identityTimeout = 2 * time.Second
)

// identityRead is the store identity as read at one time.
type identityRead struct {
	id string
	at time.Time
}

// storeIdentity keeps the store's identity for the header of every
// response. While the server serves, watchStore reads it every
// storeWatchEvery and requests use the last read; otherwise it is read on
// first use and again once identityRefresh has passed, by one request
// while the others use the identity read before. A read that fails keeps
// the last identity; with none yet, responses go without the header.
type storeIdentity struct {
	src  storeIdentifier // nil for a store without an identity
	now  func() time.Time
	mu   sync.Mutex // held by whoever reads the identity
	last atomic.Pointer[identityRead]
	// watched counts the watchStore loops running: while one runs, a
	// request never reads the store once an identity is known.
	watched atomic.Int32
}

// get returns the store's identity, "" when it has none or none could be
// read yet.
func (c *storeIdentity) get(ctx context.Context) string {
	if c.src == nil {
		return ""
	}
	last := c.last.Load()
	if last != nil && (c.watched.Load() > 0 || c.now().Sub(last.at) < identityRefresh) {
		return last.id
	}
	if !c.mu.TryLock() {
		if last != nil {
			return last.id // another request is reading it
		}
		c.mu.Lock()
	}
	defer c.mu.Unlock()
	if cur := c.last.Load(); cur != last {
		return cur.id // read while this request waited
	}
	return c.read(context.WithoutCancel(ctx), last) // the read serves the requests after it too
}

// refresh reads the identity again, for watchStore.
func (c *storeIdentity) refresh(ctx context.Context) {
	if c.src == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.read(ctx, c.last.Load())
}

// read reads the identity, keeping last when the read fails.
func (c *storeIdentity) read(ctx context.Context, last *identityRead) string {
	ctx, cancel := context.WithTimeout(ctx, identityTimeout)
	defer cancel()
	id, err := c.src.StoreID(ctx)
	if err != nil {
		if last != nil {
			return last.id
		}
		return ""
	}
	c.last.Store(&identityRead{id: id, at: c.now()})
	return id
}
