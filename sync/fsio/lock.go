package fsio

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

// Lock is an exclusive flock on one file.
type Lock struct{ f *os.File }

// AcquireLock takes the lock at path, waiting until ctx is done. A done ctx
// while another process holds the lock yields an error wrapping ErrLocked.
func AcquireLock(ctx context.Context, path string) (*Lock, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("create state directory: %w", err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open lock file: %w", err)
	}
	return WaitLock(ctx, f, "lock "+path, nil)
}

// WaitLock takes the flock on f, waiting until ctx is done; busy, when
// set, is called once when the lock has been busy for busyAfter. It closes
// f when it fails.
func WaitLock(ctx context.Context, f *os.File, what string, busy func()) (*Lock, error) {
	t := time.NewTicker(lockPoll)
	defer t.Stop()
	start := time.Now()
	for {
		ok, err := TryLock(f)
		if err != nil {
			f.Close()
			return nil, err
		}
		if ok {
			return &Lock{f: f}, nil
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

// busyAfter is how long a lock is busy before WaitLock says so.
const busyAfter = time.Second

// Release drops the lock.
func (l *Lock) Release() error { return l.f.Close() }
