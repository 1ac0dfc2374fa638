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
// A wait that a change woke (woken) takes the state of this server's own
// commit instead, when it can (see ownCommit).
func (s *Server) waitHashes(ctx context.Context, repo string, changed <-chan struct{}, woken bool) (store.Snapshot, bool, error) {
	memo, _ := s.waker.(changeMemo)
	if memo != nil {
		if v, ok := memo.Recall(repo, changed); ok {
			h := v.(hashesRead)
			return h.snap, h.found, nil
		}
	}
	if snap, ok := s.ownCommit(repo, woken); ok {
		return snap, true, nil
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

// recentReader is a store that keeps the newest state of a repo it
// committed, as the SQLite store does.
type recentReader interface {
	Recent(repo string) (store.Snapshot, bool)
}

// ownCommit returns the hashes of repo as this server last committed
// them, without a read of the store, for waits that a change woke (they
// subscribed again before this), when only this server's commits wake
// them (the in-process wake.Broker) and the store keeps its commits'
// states: the commit that woke them cached its state before it returned,
// and a commit after that wakes them again.
func (s *Server) ownCommit(repo string, woken bool) (store.Snapshot, bool) {
	if s.recent == nil || !woken {
		return store.Snapshot{}, false
	}
	return s.recent.Recent(repo)
}
