package server

import (
	"context"
	"fmt"
	"time"

	"github.com/teammemd/teammemd/server/store"
)

// waitReadTimeout bounds the read of a repo's hashes that change waits
// share.
const waitReadTimeout = 10 * time.Second

// changeMemo is a Waker that keeps a value for the waiters of one change of
// a repo, as wake.Broker does.
type changeMemo interface {
	Remember(repo string, ch <-chan struct{}, v any)
	Recall(repo string, ch <-chan struct{}) (any, bool)
}

// hashesRead is a repo's hashes as one read found them.
type hashesRead struct {
	snap  store.Snapshot
	found bool
}

// waitHashes returns the hashes of repo for a change wait that subscribed
// and got changed. Every wait that subscribed since the repo's last change
// shares one read, begun after the first of them subscribed, so it is no
// older than any of their subscriptions: 10,000 waits woken by one write
// cost one read, not 10,000. The read runs on a goroutine of its own, so
// the waits' goroutines keep the small stacks they hold the wait with.
func (s *Server) waitHashes(ctx context.Context, repo string, changed <-chan struct{}) (store.Snapshot, bool, error) {
	memo, _ := s.waker.(changeMemo)
	if memo != nil {
		if v, ok := memo.Recall(repo, changed); ok {
			h := v.(hashesRead)
			return h.snap, h.found, nil
		}
	}
	res := s.hashReads.DoChan(fmt.Sprintf("%p %s", changed, repo), func() (any, error) {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), waitReadTimeout)
		defer cancel()
		snap, found, err := s.currentHashes(rctx, repo)
		if err != nil {
			return nil, err
		}
		h := hashesRead{snap: snap, found: found}
		if memo != nil {
			memo.Remember(repo, changed, h)
		}
		return h, nil
	})
	select {
	case r := <-res:
		if r.Err != nil {
			return store.Snapshot{}, false, r.Err
		}
		h := r.Val.(hashesRead)
		return h.snap, h.found, nil
	case <-ctx.Done():
		return store.Snapshot{}, false, fmt.Errorf("change wait: %w", ctx.Err())
	}
}
