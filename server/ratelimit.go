package server

import (
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// maxLimiters bounds how many keys' buckets a limiter remembers.
const maxLimiters = 10_000

// keyLimiter is a token bucket per key (a subject, or a client address), in
// a bounded map: when it is full, buckets that have refilled and are not
// held (so forgetting them changes nothing) are dropped, and failing that
// the least recently used one.
type keyLimiter struct {
	limit rate.Limit
	burst int
	max   int

	mu      sync.Mutex
	buckets map[string]*bucket
}

type bucket struct {
	lim      *rate.Limiter
	lastSeen time.Time
	held     int // tokens held by requests being judged
}

// newKeyLimiter returns a limiter of perSecond and burst per key, or nil,
// which allows everything, when either is not positive.
func newKeyLimiter(perSecond float64, burst, max int) *keyLimiter {
	if perSecond <= 0 || burst <= 0 {
		return nil
	}
	return &keyLimiter{
		limit:   rate.Limit(perSecond),
		burst:   burst,
		max:     max,
		buckets: make(map[string]*bucket),
	}
}

// allow takes one token from key's bucket. When none is left it returns
// false and how long until one is.
func (l *keyLimiter) allow(key string, now time.Time) (time.Duration, bool) {
	if l == nil {
		return 0, true
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.bucketOf(key, now)
	r := b.lim.ReserveN(now, 1)
	if !r.OK() {
		return time.Second, false
	}
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return d, false
	}
	return 0, true
}

// bucketOf returns key's bucket, making room for it when it is new.
func (l *keyLimiter) bucketOf(key string, now time.Time) *bucket {
	b, ok := l.buckets[key]
	if !ok {
		if len(l.buckets) >= l.max {
			l.evict(now)
		}
		b = &bucket{lim: rate.NewLimiter(l.limit, l.burst)}
		l.buckets[key] = b
	}
	b.lastSeen = now
	return b
}

// evict drops every full bucket not held, or the least recently used one
// when none is.
func (l *keyLimiter) evict(now time.Time) {
	var oldest string
	var oldestSeen time.Time
	dropped := false
	for key, b := range l.buckets {
		if b.held > 0 {
			continue
		}
		if b.lim.TokensAt(now) >= float64(l.burst) {
			delete(l.buckets, key)
			dropped = true
			continue
		}
		if oldest == "" || b.lastSeen.Before(oldestSeen) {
			oldest, oldestSeen = key, b.lastSeen
		}
	}
	if !dropped && oldest != "" {
		delete(l.buckets, oldest)
	}
}

// size returns how many buckets are held.
func (l *keyLimiter) size() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.buckets)
}
