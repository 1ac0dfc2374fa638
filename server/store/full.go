package store

import (
	"errors"
	"fmt"
	"sync/atomic"
	"time"
)

// ErrFull is the error, wrapped around the database's own, of a write the
// database refused because its storage is full: SQLite's SQLITE_FULL
// ("database or disk is full"), PostgreSQL's disk_full (SQLSTATE 53100).
// Nothing of the write was stored, and the same write succeeds once there
// is room again. Every backend returns it for every kind of write (repo
// writes, purges, proposals, tokens, sessions), so that its callers tell a
// full disk from any other fault without knowing the backend.
var ErrFull = errors.New("the store's storage is full")

// FullError returns err, a database's refusal of a write for want of room,
// as an ErrFull that still wraps err; an err that is one already is
// returned as it is.
func FullError(err error) error {
	if errors.Is(err, ErrFull) {
		return err
	}
	return fmt.Errorf("%w: %w", ErrFull, err)
}

// FullWatch keeps whether a store's last write was refused for a full
// storage, for the server's readiness check. The zero value has seen no
// refusal. It is safe for concurrent use; a write noted while the watch is
// clear costs one atomic load.
type FullWatch struct {
	last atomic.Pointer[refusal] // the last write's refusal, nil once a write succeeds
}

// refusal is a write refused for a full storage, and when.
type refusal struct {
	err error
	at  time.Time
}

// Note records the outcome of a write and returns err as it is: an
// ErrFull makes the watch full, a write that succeeded (nil) makes it
// clear, and any other error (a failed precondition, a canceled request)
// tells nothing of the storage and leaves it as it was.
func (w *FullWatch) Note(err error) error {
	switch {
	case err == nil:
		if w.last.Load() != nil {
			w.last.Store(nil)
		}
	case errors.Is(err, ErrFull):
		w.last.Store(&refusal{err: err, at: time.Now()})
	}
	return err
}

// Full returns when the last write Note saw was refused for a full
// storage, and its error; the zero time and nil when no write was, or
// one has succeeded since.
func (w *FullWatch) Full() (time.Time, error) {
	if r := w.last.Load(); r != nil {
		return r.at, r.err
	}
	return time.Time{}, nil
}
