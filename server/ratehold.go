package server

import "time"

// hold is one token of a bucket held while a request is judged, for a limit
// on the requests that fail: spend takes it when the request fails, release
// gives it back when it succeeds. The zero hold, of a limiter that is off,
// does nothing.
type hold struct {
	l *keyLimiter
	b *bucket
}

// reserve holds one token of key's bucket; tokens already held count as
// taken, so requests judged at once cannot spend more than the bucket has.
// When none is free it returns false and how long until one is.
func (l *keyLimiter) reserve(key string, now time.Time) (hold, time.Duration, bool) {
	if l == nil {
		return hold{}, 0, true
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.bucketOf(key, now)
	free := b.lim.TokensAt(now) - float64(b.held)
	if free < 1 {
		return hold{}, time.Duration((1 - free) / float64(l.limit) * float64(time.Second)), false
	}
	b.held++
	return hold{l: l, b: b}, 0, true
}

// spend takes the held token from the bucket.
func (h hold) spend(now time.Time) {
	if h.l == nil {
		return
	}
	h.l.mu.Lock()
	defer h.l.mu.Unlock()
	h.b.held--
	h.b.lim.ReserveN(now, 1)
}

// release gives the held token back.
func (h hold) release() {
	if h.l == nil {
		return
	}
	h.l.mu.Lock()
	defer h.l.mu.Unlock()
	h.b.held--
}
