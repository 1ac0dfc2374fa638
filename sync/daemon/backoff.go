package daemon

import (
	"time"

	memsync "github.com/teammemd/teammemd/sync"
)

// Backoff bounds for retries after transient failures.
const (
	DefaultMinBackoff = time.Second
	DefaultMaxBackoff = 2 * time.Minute
)

// backoff counts one schedule's consecutive failures and draws each wait
// from memsync.Backoff, the client's schedule too.
type backoff struct {
	min, max time.Duration
	attempt  int
}

// next returns the delay before the next attempt and counts it.
func (b *backoff) next() time.Duration {
	d := memsync.Backoff(b.min, b.max, b.attempt)
	b.attempt++
	return d
}

// reset starts over after a success.
func (b *backoff) reset() { b.attempt = 0 }
