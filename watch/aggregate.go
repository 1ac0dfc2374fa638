package watch

import (
	"context"
	"slices"
	"time"

	"github.com/teammemd/teammemd/internal/savetrace"
)

// Batch is one group of changes, emitted once the directory has been quiet
// for the debounce interval or the oldest change has waited MaxWait.
type Batch struct {
	// Paths are the changed paths relative to the watched directory, with
	// forward slashes, sorted and without duplicates. A path may name a file
	// that no longer exists, or a directory.
	Paths []string
	// Rescan is set when the whole tree must be compared again: a periodic
	// safety rescan, a lost event queue, or polling instead of notification.
	Rescan bool
}

// event is one input of the aggregator: a changed path or a rescan request.
type event struct {
	path   string
	rescan bool
}

// aggregator turns a stream of events into debounced batches. All of its
// state is owned by the goroutine running run: no locks.
type aggregator struct {
	debounce time.Duration
	maxWait  time.Duration

	pending map[string]struct{}
	rescan  bool
	first   time.Time // arrival of the oldest pending event
	last    time.Time // arrival of the newest pending event

	hints  *settler        // the hints ahead of the batch (settle.go)
	hinted chan<- []string // where hints go; nil without them

	ahead *leader         // the notice before the batch is due (lead.go)
	soon  chan<- []string // where it goes; nil without it

	asked <-chan chan<- []string // where Undelivered asks; nil without it
}

func newAggregator(debounce, maxWait time.Duration) *aggregator {
	return &aggregator{debounce: debounce, maxWait: maxWait, pending: map[string]struct{}{}, hints: newSettler(0, debounce), ahead: newLeader(0, debounce)}
}

// withLead has the aggregator offer on out, lead before a batch of named
// changes is due, the paths it will name (see leader).
func (a *aggregator) withLead(lead time.Duration, out chan<- []string) *aggregator {
	a.ahead, a.soon = newLeader(lead, a.debounce), out
	return a
}

// withHints has the aggregator offer, on out, the paths changed once the
// directory has been quiet for settle (see settler).
func (a *aggregator) withHints(settle time.Duration, out chan<- []string) *aggregator {
	a.hints, a.hinted = newSettler(settle, a.debounce), out
	return a
}

// withAsk has the aggregator answer each channel it receives on asks
// with the paths it has not delivered (see undelivered).
func (a *aggregator) withAsk(asks <-chan chan<- []string) *aggregator {
	a.asked = asks
	return a
}

// run reads events from in until ctx is done or in is closed, and sends
// batches on out. It never blocks reading events while a batch waits to be
// taken: later changes merge into the batch not yet delivered. It returns
// what no batch delivered (see leftover).
func (a *aggregator) run(ctx context.Context, in <-chan event, out chan<- Batch) Batch {
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	defer a.hints.stop()
	defer a.ahead.stop()
	var ready *Batch
	for {
		var send chan<- Batch
		var head Batch
		if ready != nil {
			send, head = out, *ready
		}
		hint, hintPaths := a.hints.offer(a.hinted)
		notice, noticePaths := a.ahead.offer(a.soon)
		select {
		case <-ctx.Done():
			return a.leftover(in, ready)
		case ev, ok := <-in:
			if !ok {
				return a.leftover(in, ready)
			}
			a.add(ev, time.Now())
			timer.Reset(time.Until(a.deadline()))
			if !ev.rescan {
				a.ahead.set(a.deadline())
			}
		case <-timer.C:
			ready = a.flush(ready)
		case send <- head:
			ready = nil
		case <-a.hints.due():
			a.hints.fire()
		case <-a.ahead.due():
			a.ahead.fire(a.pending)
		case notice <- noticePaths:
			a.ahead.taken()
		case hint <- hintPaths:
			a.hints.taken()
		case reply := <-a.asked:
			reply <- a.undelivered(ready)
		}
	}
}

// leftover is what the aggregator saw that no batch delivered, as it
// stops: the batch not taken, merged with the events still in the
// debounce and those queued on in.
func (a *aggregator) leftover(in <-chan event, ready *Batch) Batch {
	for queued := true; queued; {
		select {
		case ev, ok := <-in:
			if queued = ok; ok {
				a.add(ev, time.Now())
			}
		default:
			queued = false
		}
	}
	if b := a.flush(ready); b != nil {
		return *b
	}
	return Batch{}
}

// add records ev as pending at time now. A change restarts the debounce;
// a rescan request, no change of the user's, joins what is pending
// without moving its deadline, and alone waits the debounce from its
// arrival.
func (a *aggregator) add(ev event, now time.Time) {
	if a.empty() {
		a.first, a.last = now, now
	}
	if ev.rescan {
		a.rescan = true
		return
	}
	a.last = now
	a.pending[ev.path] = struct{}{}
	a.hints.add(ev.path)
}

// undelivered is every path changed that no batch delivered yet: those
// in the debounce and those of ready, the batch not taken, sorted and
// each once. A new slice: the caller may keep it.
func (a *aggregator) undelivered(ready *Batch) []string {
	var out []string
	if ready != nil {
		out = slices.Clone(ready.Paths)
	}
	for p := range a.pending {
		out = append(out, p)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func (a *aggregator) empty() bool { return len(a.pending) == 0 && !a.rescan }

// deadline is when the pending events are due: debounce after the last one,
// but never later than maxWait after the first one.
func (a *aggregator) deadline() time.Time {
	d := a.last.Add(a.debounce)
	if capAt := a.first.Add(a.maxWait); capAt.Before(d) {
		return capAt
	}
	return d
}

// flush moves the pending events into a batch, merging them into ready when
// the previous batch has not been taken yet.
func (a *aggregator) flush(ready *Batch) *Batch {
	if a.empty() {
		return ready
	}
	b := &Batch{}
	if ready != nil {
		b = ready
	}
	b.Rescan = b.Rescan || a.rescan
	for p := range a.pending {
		b.Paths = append(b.Paths, p)
	}
	slices.Sort(b.Paths)
	b.Paths = slices.Compact(b.Paths)
	clear(a.pending)
	a.rescan = false
	a.hints.drop()
	a.ahead.stop()
	savetrace.Mark("watch.batch", "")
	return b
}
