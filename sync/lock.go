package memsync

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// ErrLocked is returned when another teammemd holds a repo's lock.
var ErrLocked = errors.New("another teammemd is syncing this repo")

// lockPoll is how often a blocked lock is retried.
const lockPoll = 50 * time.Millisecond

// repoLock is an exclusive lock on one repo's state.
type repoLock struct{ f *os.File }

// acquireLock takes the lock at path, waiting until ctx is done. A done ctx
// while another process holds the lock yields an error wrapping ErrLocked.
func acquireLock(ctx context.Context, path string) (*repoLock, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("create state directory: %w", err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open lock file: %w", err)
	}
	return waitLock(ctx, f, "lock "+path, nil)
}

// waitLock takes the flock on f, waiting until ctx is done; busy, when
// set, is called once when the lock has been busy for busyAfter. It closes
// f when it fails.
func waitLock(ctx context.Context, f *os.File, what string, busy func()) (*repoLock, error) {
	t := time.NewTicker(lockPoll)
	defer t.Stop()
	start := time.Now()
	for {
		ok, err := tryLock(f)
		if err != nil {
			f.Close()
			return nil, err
		}
		if ok {
			return &repoLock{f: f}, nil
		}
		if busy != nil && time.Since(start) >= busyAfter {
			busy()
			busy = nil
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("%w (%s): %w", ErrLocked, what, ctx.Err())
		case <-t.C:
		}
	}
}

// busyAfter is how long a lock is busy before waitLock says so.
const busyAfter = time.Second

// lockTeamDir takes the lock on the team directory itself. The state lock
// keeps out the processes that share this engine's state directory; this
// one also keeps out a teammemd with another state directory (a second
// daemon, say) on the same team directory, which would otherwise write
// into it at the same time from another idea of what is synced.
func (e *Engine) lockTeamDir(ctx context.Context) (*repoLock, error) {
	f, err := os.Open(e.cfg.Dir)
	if err != nil {
		return nil, fmt.Errorf("open the team directory to lock it: %w", err)
	}
	return waitLock(ctx, f, "team directory "+e.cfg.Dir+", which a teammemd with another state directory is syncing", func() {
		e.log.Warn("another teammemd, with another state directory, is syncing this team directory; waiting for it (stop one of them)", "dir", e.cfg.Dir)
	})
}

// release drops the lock.
func (l *repoLock) release() error { return l.f.Close() }
