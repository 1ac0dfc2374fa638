// Package pause waits a while unless a context ends first: the one wait
// of the daemon's backoff and of the test proxies and labs that pace
// their faults.
package pause

import (
	"context"
	"time"
)

// For waits d; it reports false when ctx ended first.
func For(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
