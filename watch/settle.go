package watch

import (
	"slices"
	"time"
)

// DefaultSettle is the quiet time after which a watcher asked for hints
// (Options.Settle) names the paths changed so far, ahead of their batch.
// It is longer than the racy window of the common file systems (100 ms),
// so a file hashed on the hint can be trusted by its size, mtime and
// inode when its batch comes.
const DefaultSettle = 250 * time.Millisecond

// settler keeps the hints of an aggregator: the paths changed since the
// last hint, offered once the directory has been quiet for after. A hint
// is a head start only (the batch still names every path), so one not yet
// taken merges with the next, and a batch drops those it covers. It is
// owned by the aggregator's goroutine.
type settler struct {
	after   time.Duration // zero: no hints
	pending map[string]struct{}
	ready   []string // sorted; offered until taken or dropped
	timer   *time.Timer
}

// newSettler returns the hints of a watcher with the given settle time and
// debounce; none when settle is zero or not shorter than the debounce.
func newSettler(after, debounce time.Duration) *settler {
	s := &settler{pending: map[string]struct{}{}}
	if after > 0 && after < debounce {
		s.after = after
		s.timer = time.NewTimer(time.Hour)
		s.timer.Stop()
	}
	return s
}

// add notes a changed path and starts the quiet time again.
func (s *settler) add(path string) {
	if s.after == 0 {
		return
	}
	s.pending[path] = struct{}{}
	s.timer.Reset(s.after)
}

// due is the channel the quiet time ends on; nil without hints.
func (s *settler) due() <-chan time.Time {
	if s.after == 0 {
		return nil
	}
	return s.timer.C
}

// fire moves the pending paths into the hint on offer.
func (s *settler) fire() {
	for p := range s.pending {
		s.ready = append(s.ready, p)
	}
	clear(s.pending)
	slices.Sort(s.ready)
	s.ready = slices.Compact(s.ready)
}

// offer returns out and the hint when one is on offer, else a nil channel.
func (s *settler) offer(out chan<- []string) (chan<- []string, []string) {
	if len(s.ready) == 0 {
		return nil, nil
	}
	return out, s.ready
}

// taken forgets the hint just delivered.
func (s *settler) taken() { s.ready = nil }

// drop forgets every hint: a batch now names their paths.
func (s *settler) drop() {
	if s.after == 0 {
		return
	}
	clear(s.pending)
	s.ready = nil
	s.timer.Stop()
}

// stop releases the timer.
func (s *settler) stop() {
	if s.timer != nil {
		s.timer.Stop()
	}
}
