package server

import (
	"testing"
	"time"
)

// Checks in flight hold tokens of the failure budget only for credentials
// an identity service judges: the API tokens of one address checked at
// once are admitted however many there are, while the budget still bounds
// provider checks in flight and failures spend it for both.
func TestAdmitLocalHoldsNothing(t *testing.T) {
	now := time.Unix(1e9, 0)
	l := newKeyLimiter(0.001, 2, 100)
	var inFlight []hold
	for i := range 2 {
		h, _, ok := l.reserve("203.0.113.9", now)
		if !ok {
			t.Fatalf("provider check %d within the burst refused", i)
		}
		inFlight = append(inFlight, h)
	}
	if _, _, ok := l.reserve("203.0.113.9", now); ok {
		t.Error("a third provider check in flight admitted, want it refused: the burst is 2")
	}
	for _, h := range inFlight {
		h.release()
	}
	var local []hold
	for i := range 16 {
		h, _, ok := l.admitLocal("203.0.113.9", now)
		if !ok {
			t.Fatalf("API token check %d of 16 at once refused, want each admitted", i)
		}
		local = append(local, h)
	}
	for _, h := range local[:2] {
		h.spend(now)
	}
	for _, h := range local[2:] {
		h.release()
	}
	if _, _, ok := l.admitLocal("203.0.113.9", now); ok {
		t.Error("an API token check after two failures spent the burst admitted, want it refused")
	}
}
