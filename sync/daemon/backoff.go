package daemon

import (
	"math/rand/v2"
	"time"
)

// Backoff bounds for retries after transient failures.
const (
	DefaultMinBackoff = time.Second
	DefaultMaxBackoff = 2 * time.Minute
)

// backoff is an exponential delay with full jitter in its upper half:
// attempt n waits a random time in [d/2, d] where d = min*2^n capped at max.
type backoff struct {
	min, max time.Duration
	attempt  int
}

// next returns the delay before the next attempt and counts it.
func (b *backoff) next() time.Duration {
	d := b.min
	for i := 0; i < b.attempt && d < b.max; i++ {
		d *= 2
	}
	d = min(d, b.max)
	b.attempt++
	half := d / 2
	return half + rand.N(d-half+1)
}

// reset starts over after a success.
func (b *backoff) reset() { b.attempt = 0 }
