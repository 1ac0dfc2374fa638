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
	t := time.NewTicker(lockPoll)
	defer t.Stop()
	for {
		ok, err := tryLock(f)
		if err != nil {
			f.Close()
			return nil, err
		}
		if ok {
			return &repoLock{f: f}, nil
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("%w (lock %s): %w", ErrLocked, path, ctx.Err())
		case <-t.C:
		}
	}
}

// release drops the lock.
func (l *repoLock) release() error { return l.f.Close() }
