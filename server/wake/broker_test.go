package wake

import (
	"slices"
	"testing"
)

func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

func TestBroker(t *testing.T) {
	b := NewBroker()
	a1, releaseA1 := b.Subscribe("acme/a")
	a2, releaseA2 := b.Subscribe("acme/a")
	other, releaseOther := b.Subscribe("acme/b")
	b.Publish("acme/a")
	if !closed(a1) || !closed(a2) {
		t.Error("publish(acme/a) did not wake both acme/a waiters")
	}
	if closed(other) {
		t.Error("publish(acme/a) woke an acme/b waiter")
	}
	next, releaseNext := b.Subscribe("acme/a")
	if closed(next) {
		t.Error("a subscription after publish starts woken")
	}
	releaseA1()
	releaseA2()
	releaseA2() // a second call is harmless
	if got := b.Len(); got != 2 {
		t.Errorf("topics = %d, want 2 (acme/a again, acme/b)", got)
	}
	got := b.Repos()
	slices.Sort(got)
	if !slices.Equal(got, []string{"acme/a", "acme/b"}) {
		t.Errorf("Repos() = %q, want [acme/a acme/b]", got)
	}
	releaseNext()
	releaseOther()
	if got := b.Len(); got != 0 {
		t.Errorf("topics after every release = %d, want 0", got)
	}
	b.Publish("acme/none") // no waiters: nothing to do
}

// TestBrokerRemember keeps a value for the waiters of one change: those
// that subscribe before the next change recall it, a waiter of an earlier
// change never does, and the next change forgets it.
func TestBrokerRemember(t *testing.T) {
	b := NewBroker()
	first, releaseFirst := b.Subscribe("acme/a")
	defer releaseFirst()
	if _, ok := b.Recall("acme/a", first); ok {
		t.Error("Recall() before Remember = true, want false")
	}
	b.Remember("acme/a", first, "v1")
	second, releaseSecond := b.Subscribe("acme/a")
	defer releaseSecond()
	if v, ok := b.Recall("acme/a", second); !ok || v != "v1" {
		t.Errorf("Recall(a later waiter of the same change) = %v, %v, want v1", v, ok)
	}
	if _, ok := b.Recall("acme/b", second); ok {
		t.Error("Recall(another repo) = true, want false")
	}
	b.Publish("acme/a")
	next, releaseNext := b.Subscribe("acme/a")
	defer releaseNext()
	if _, ok := b.Recall("acme/a", next); ok {
		t.Error("Recall() after the next change = true, want false")
	}
	b.Remember("acme/a", first, "stale")
	if _, ok := b.Recall("acme/a", next); ok {
		t.Error("Remember(a closed channel) kept its value for the next change")
	}
}
