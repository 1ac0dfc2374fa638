// Package savetrace records when a save passes each step on its way from
// the watcher to a teammate's disk: the file event, the debounced batch,
// the scan, the PUT, the server's commit and wake, the pull and the write.
// It is off unless the process starts with TEAMMEMD_SAVETRACE naming a
// file; off, a mark costs one atomic load. cmd/daemonbench turns it on to
// print where one save's milliseconds go.
package savetrace

import (
	"fmt"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// EnvVar names the file marks are appended to.
const EnvVar = "TEAMMEMD_SAVETRACE"

// sink is where marks go, or nil while tracing is off.
var sink atomic.Pointer[recorder]

// recorder appends one line per mark to a file.
type recorder struct {
	mu  sync.Mutex
	f   *os.File
	buf []byte
}

// StartFromEnv turns tracing on when EnvVar names a file, appending to
// it, and returns the function that turns it off and closes the file.
func StartFromEnv() (stop func() error, err error) {
	path := os.Getenv(EnvVar)
	if path == "" {
		return func() error { return nil }, nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open save trace: %w", err)
	}
	sink.Store(&recorder{f: f})
	return func() error {
		sink.Store(nil)
		if err := f.Close(); err != nil {
			return fmt.Errorf("close save trace: %w", err)
		}
		return nil
	}, nil
}

// On reports whether marks are recorded, for a caller that would do work
// only to name a mark's detail.
func On() bool { return sink.Load() != nil }

// Mark records that step was reached now, with detail (a key, a count;
// never a value). Off, it does nothing.
func Mark(step, detail string) {
	r := sink.Load()
	if r == nil {
		return
	}
	r.write(time.Now(), step, detail)
}

// write appends "<unix ns> <pid> <step> <detail>" as one write, so lines
// of processes sharing the file never interleave. A failed write is
// dropped: the trace is a measurement aid and never stops a sync.
func (r *recorder) write(now time.Time, step, detail string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	b := strconv.AppendInt(r.buf[:0], now.UnixNano(), 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(os.Getpid()), 10)
	b = append(b, ' ')
	b = append(b, step...)
	b = append(b, ' ')
	b = append(b, detail...)
	b = append(b, '\n')
	r.buf = b
	r.f.Write(b)
}
