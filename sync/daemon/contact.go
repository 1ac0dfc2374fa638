package daemon

import (
	"time"

	memsync "github.com/teammemd/teammemd/sync"
)

// contact records that the server answered now.
func (b *statusBox) contact(now time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.s.LastContact, b.s.UnreachableSince = &now, nil
}

// unreachable records that a request failed to reach the server now: the
// change wait is not connected, and the server is unreachable since the
// first such failure.
func (b *statusBox) unreachable(now time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.s.Live = false
	if b.s.UnreachableSince == nil {
		b.s.UnreachableSince = &now
	}
}

// noteReach folds the outcome of a request to the server into the status:
// an answer is contact, a failure to get one makes the server unreachable,
// and an answer from something that is not a teammemd server ends the
// unreachable spell without being contact. Errors of another kind (on
// disk, say) change neither.
func (b *statusBox) noteReach(err error) {
	switch o := memsync.Classify(err); {
	case o == memsync.Done, o.Answered():
		b.contact(time.Now())
	case o == memsync.Unreachable:
		b.unreachable(time.Now())
	case o == memsync.WrongServer:
		b.reachedOther()
	}
}

// reachedOther records that something other than a teammemd server
// answered at the server URL: it is not unreachable, and not in contact.
func (b *statusBox) reachedOther() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.s.UnreachableSince = nil
}

func clonedTime(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	c := *t
	return &c
}
