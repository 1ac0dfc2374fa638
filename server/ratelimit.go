package server

import (
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// maxLimiters bounds how many subjects' buckets the server remembers.
const maxLimiters = 10_000

// subjectLimiter is a token bucket per subject, in a bounded map: when it is
// full, buckets that have refilled (so forgetting them changes nothing) are
// dropped, and failing that the least recently used one.
type subjectLimiter struct {
	limit rate.Limit
	burst int
	max   int

	mu      sync.Mutex
	buckets map[string]*bucket
}

type bucket struct {
	lim      *rate.Limiter
	lastSeen time.Time
}

func newSubjectLimiter(cfg RateLimit, max int) *subjectLimiter {
	if !cfg.Enabled() {
		return nil
	}
	return &subjectLimiter{
		limit:   rate.Limit(cfg.RequestsPerSecond),
		burst:   cfg.Burst,
		max:     max,
		buckets: make(map[string]*bucket),
	}
}

// allow takes one token from subject's bucket. When none is left it returns
// false and how long until one is.
func (l *subjectLimiter) allow(subject string, now time.Time) (time.Duration, bool) {
	if l == nil {
		return 0, true
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	b, ok := l.buckets[subject]
	if !ok {
		if len(l.buckets) >= l.max {
			l.evict(now)
		}
		b = &bucket{lim: rate.NewLimiter(l.limit, l.burst)}
		l.buckets[subject] = b
	}
	b.lastSeen = now
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

// evict drops every full bucket, or the least recently used one when none
// is full.
func (l *subjectLimiter) evict(now time.Time) {
	var oldest string
	var oldestSeen time.Time
	dropped := false
	for subject, b := range l.buckets {
		if b.lim.TokensAt(now) >= float64(l.burst) {
			delete(l.buckets, subject)
			dropped = true
			continue
		}
		if oldest == "" || b.lastSeen.Before(oldestSeen) {
			oldest, oldestSeen = subject, b.lastSeen
		}
	}
	if !dropped && oldest != "" {
		delete(l.buckets, oldest)
	}
}

// size returns how many buckets are held.
func (l *subjectLimiter) size() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.buckets)
}
