package server

import "sync"

// Why a change wait was refused a slot, the label of the refusal counter.
const (
	refusedServer  = "server"  // the server holds MaxWaiters waits
	refusedSubject = "subject" // the subject holds MaxWaitersPerSubject waits
)

// waitSlots counts change waits, in all and per token subject, under a cap
// for each. A subject's count is forgotten when its last wait ends, so the
// map holds only subjects that are waiting.
type waitSlots struct {
	max, perSubject int

	mu        sync.Mutex
	total     int
	bySubject map[string]int
}

func newWaitSlots(max, perSubject int) *waitSlots {
	return &waitSlots{max: max, perSubject: perSubject, bySubject: make(map[string]int)}
}

// acquire takes a slot for subject, or returns why there is none: a full
// server refuses everyone, so it is named first. The caller gives a slot
// back with release.
func (w *waitSlots) acquire(subject string) (string, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case w.total >= w.max:
		return refusedServer, false
	case w.bySubject[subject] >= w.perSubject:
		return refusedSubject, false
	}
	w.total++
	w.bySubject[subject]++
	return "", true
}

// release gives back a slot subject took.
func (w *waitSlots) release(subject string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.total--
	if w.bySubject[subject]--; w.bySubject[subject] <= 0 {
		delete(w.bySubject, subject)
	}
}

// count returns how many waits hold a slot.
func (w *waitSlots) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.total
}
