package login

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"
)

// Bounds of the wait for another process's refresh of the same login.
const (
	// lockWait is how long a refresh waits for the lock: as long as the
	// token request of a refresh may take. A holder that takes longer has
	// most likely stalled (stopped with ^Z, a provider that does not
	// answer), and the caller gets an error naming it rather than wait on.
	lockWait = refreshTimeout
	// lockPoll is how often the lock is tried while another holds it.
	lockPoll = 50 * time.Millisecond
)

// ErrRefreshLocked means another process held the login's refresh lock
// for all of lockWait.
var ErrRefreshLocked = errors.New("another process is refreshing the login")

// holder is who holds a refresh lock: the process writes it into the lock
// file once it has the lock, and empties the file before letting go.
type holder struct {
	PID   int       `json:"pid"`
	Host  string    `json:"host"`
	Since time.Time `json:"since"`
}

// lockLogin takes the refresh lock of the login kept at login: the file
// beside it with ".lock" appended, which every change to a login holds
// (a refresh, a new login, a logout).
func lockLogin(ctx context.Context, login string) (release func(), err error) {
	return lockRefresh(ctx, login+".lock")
}

// lockRefresh takes the refresh lock at path, waiting while another
// process holds it until ctx ends or lockWait has passed, and records this
// process as its holder. release lets it go.
func lockRefresh(ctx context.Context, path string) (release func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open the refresh lock: %w", err)
	}
	if err := waitLock(ctx, f); err != nil {
		f.Close()
		return nil, err
	}
	host, _ := os.Hostname()
	data, _ := json.Marshal(holder{PID: os.Getpid(), Host: host, Since: time.Now()})
	if f.Truncate(0) == nil {
		_, _ = f.WriteAt(data, 0) // only for messages: a lock without it still works
	}
	return func() {
		_ = f.Truncate(0)
		f.Close()
	}, nil
}

// waitLock tries the lock on f every lockPoll until it has it, ctx ends
// or lockWait has passed.
func waitLock(ctx context.Context, f *os.File) error {
	bound := time.NewTimer(lockWait)
	defer bound.Stop()
	poll := time.NewTicker(lockPoll)
	defer poll.Stop()
	for {
		ok, err := tryLock(f)
		if ok || err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for %s to finish refreshing the login: %w", lockHolder(f.Name()), ctx.Err())
		case <-bound.C:
			return fmt.Errorf("%w: %s has held the lock %s for over %s; stop it, or try again when it is done",
				ErrRefreshLocked, lockHolder(f.Name()), f.Name(), lockWait)
		case <-poll.C:
		}
	}
}

// lockHolder describes the holder the lock file at path names.
func lockHolder(path string) string {
	data, err := os.ReadFile(path)
	var h holder
	if err != nil || json.Unmarshal(data, &h) != nil || h.PID <= 0 {
		return "another process"
	}
	host, _ := os.Hostname()
	return h.describe(host, running)
}

// describe names h for a process on host; alive says whether a process
// of this host runs.
func (h holder) describe(host string, alive func(pid int) bool) string {
	who := fmt.Sprintf("pid %d on %s", h.PID, h.Host)
	if h.Host == host && !alive(h.PID) {
		return "another process (the lock file still names " + who + ", which has ended)"
	}
	return who + " (lock taken " + h.Since.Local().Format(time.DateTime) + ")"
}
