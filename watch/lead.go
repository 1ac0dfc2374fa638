package watch

import (
	"slices"
	"time"
)

// DefaultLead is how long before a batch of changes is due a watcher
// asked for it (Options.Lead) says so: long enough for a daemon that
// idled to wake the processes the batch will run through, short enough
// that what they read is still in the processor's caches when it comes.
const DefaultLead = 30 * time.Millisecond

// leader keeps the notice an aggregator gives lead before a batch of
// named changes is due: the paths it will name, a head start for
// whoever will handle it. A change after the notice moves the deadline,
// and a notice comes again before the new one. A notice not taken by
// the time the batch is out is dropped. It is owned by the aggregator's
// goroutine.
type leader struct {
	lead  time.Duration // zero: no notice
	timer *time.Timer
	ready []string // sorted; on offer until taken or dropped
}

// newLeader returns the notice of a watcher with the given lead and
// debounce; none when lead is zero or not shorter than the debounce.
func newLeader(lead, debounce time.Duration) *leader {
	l := &leader{}
	if lead > 0 && lead < debounce {
		l.lead = lead
		l.timer = time.NewTimer(time.Hour)
		l.timer.Stop()
	}
	return l
}

// set arms the notice for a batch due at deadline.
func (l *leader) set(deadline time.Time) {
	if l.lead > 0 {
		l.timer.Reset(time.Until(deadline.Add(-l.lead)))
	}
}

// due is the channel the notice's time comes on; nil without it.
func (l *leader) due() <-chan time.Time {
	if l.lead == 0 {
		return nil
	}
	return l.timer.C
}

// fire puts the paths pending, as the batch will name them, on offer.
func (l *leader) fire(pending map[string]struct{}) {
	l.ready = make([]string, 0, len(pending))
	for p := range pending {
		l.ready = append(l.ready, p)
	}
	slices.Sort(l.ready)
}

// offer returns out and the notice when one is on offer, else a nil
// channel.
func (l *leader) offer(out chan<- []string) (chan<- []string, []string) {
	if l.ready == nil {
		return nil, nil
	}
	return out, l.ready
}

// taken forgets the notice just delivered.
func (l *leader) taken() { l.ready = nil }

// stop disarms the notice and drops one not taken: its batch is out.
func (l *leader) stop() {
	if l.lead > 0 {
		l.timer.Stop()
	}
	l.ready = nil
}
