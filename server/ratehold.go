package server

import "time"

// hold is one token of a bucket held while a request is judged, for a limit
// on the requests that fail: spend takes it when the request fails, release
// gives it back when it succeeds. The zero hold, of a limiter that is off,
// does nothing.
type hold struct {
	l *keyLimiter
	b *bucket
	// open is a hold that keeps no token aside: see admitLocal.
	open bool
}

// reserve holds one token of key's bucket; tokens already held count as
// taken, so requests judged at once cannot spend more than the bucket has.
// When none is free it returns false and how long until one is.
func (l *keyLimiter) reserve(key string, now time.Time) (hold, time.Duration, bool) {
	return l.take(key, now, true)
}

// admitLocal is reserve for a credential the server checks itself (an API
// token: a hash looked up in its store, no identity service asked): it
// needs a token free, as reserve does, but keeps none aside while the
// check runs, so that many requests of one address checked at once (a
// team behind one NAT, a replica's load test) are not refused for being
// at once; a failure still spends a token.
func (l *keyLimiter) admitLocal(key string, now time.Time) (hold, time.Duration, bool) {
	return l.take(key, now, false)
}

// take admits a request when key's bucket has a token free, holding it
// aside while the request is judged when keep is set.
func (l *keyLimiter) take(key string, now time.Time, keep bool) (hold, time.Duration, bool) {
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
	if keep {
		b.held++
	}
	return hold{l: l, b: b, open: !keep}, 0, true
}

// spend takes the held token from the bucket.
func (h hold) spend(now time.Time) {
	if h.l == nil {
		return
	}
	h.l.mu.Lock()
	defer h.l.mu.Unlock()
	if !h.open {
		h.b.held--
	}
	h.b.lim.ReserveN(now, 1)
}

// release gives the held token back.
func (h hold) release() {
	if h.l == nil || h.open {
		return
	}
	h.l.mu.Lock()
	defer h.l.mu.Unlock()
	h.b.held--
}
