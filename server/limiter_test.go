package server

import (
	"testing"
	"time"
)

func TestKeyLimiter(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	l := newKeyLimiter(1, 2, 3)
	for i := range 2 {
		if _, ok := l.allow("alice", now); !ok {
			t.Fatalf("allow(alice) #%d refused within burst", i)
		}
	}
	wait, ok := l.allow("alice", now)
	if ok || wait <= 0 || wait > time.Second {
		t.Errorf("allow(alice) over burst = %s, %v, want refused with a wait in (0, 1s]", wait, ok)
	}
	if _, ok := l.allow("alice", now.Add(time.Second)); !ok {
		t.Error("allow(alice) after refill refused")
	}
	for _, s := range []string{"bob", "carol", "dave", "erin"} {
		l.allow(s, now.Add(time.Second))
	}
	if got := l.size(); got > 3 {
		t.Errorf("limiter holds %d subjects, want at most 3", got)
	}
	var off *keyLimiter = newKeyLimiter(0, 0, 3)
	if _, ok := off.allow("x", now); !ok {
		t.Error("disabled limiter refused")
	}
}

func TestBodyCache(t *testing.T) {
	c := newBodyCache(10)
	c.put("a/a", 1, "s1", []byte("aaaa"))
	if got, ok := c.get("a/a", 1, "s1"); !ok || string(got) != "aaaa" {
		t.Errorf("get(a/a, 1) = %q, %v, want aaaa, true", got, ok)
	}
	for _, tt := range []struct {
		version  int64
		checksum string
	}{{2, "s1"}, {1, "s2"}} {
		if _, ok := c.get("a/a", tt.version, tt.checksum); ok {
			t.Errorf("get(a/a, %d, %s) hit, want a miss", tt.version, tt.checksum)
		}
	}
	c.put("b/b", 1, "s", []byte("bbbb"))
	c.get("a/a", 1, "s1") // a/a is now the most recently used
	c.put("c/c", 1, "s", []byte("cccc"))
	if _, ok := c.get("b/b", 1, "s"); ok {
		t.Error("b/b still cached, want it evicted as least recently used")
	}
	if _, ok := c.get("a/a", 1, "s1"); !ok {
		t.Error("a/a evicted, want it kept")
	}
	c.put("a/a", 2, "s2", []byte("aa"))
	if _, ok := c.get("a/a", 1, "s1"); ok || c.size != 6 {
		t.Errorf("after replacing a/a: old version hit %v, size %d, want a miss and size 6", ok, c.size)
	}
	c.put("d/d", 1, "s", []byte("way over the budget"))
	if _, ok := c.get("d/d", 1, "s"); ok {
		t.Error("a body over the budget was cached")
	}
}

// TestKeyLimiterHold: tokens held while requests are judged count as taken;
// a spent one stays taken and a released one is free again.
func TestKeyLimiterHold(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	l := newKeyLimiter(0.1, 3, 10)
	var holds []hold
	for i := range 3 {
		h, _, ok := l.reserve("203.0.113.1", now)
		if !ok {
			t.Fatalf("reserve #%d refused within the burst", i)
		}
		holds = append(holds, h)
	}
	if _, wait, ok := l.reserve("203.0.113.1", now); ok || wait != 10*time.Second {
		t.Errorf("reserve with every token held = %s, %v, want refused for 10s", wait, ok)
	}
	if _, _, ok := l.reserve("203.0.113.2", now); !ok {
		t.Error("reserve of another address refused")
	}
	holds[0].release()
	holds[1].spend(now)
	holds[2].spend(now)
	h, _, ok := l.reserve("203.0.113.1", now)
	if !ok {
		t.Fatal("reserve after a release refused")
	}
	h.spend(now)
	if _, wait, ok := l.reserve("203.0.113.1", now); ok || wait != 10*time.Second {
		t.Errorf("reserve with every token spent = %s, %v, want refused for 10s", wait, ok)
	}
	if _, _, ok := l.reserve("203.0.113.1", now.Add(10*time.Second)); !ok {
		t.Error("reserve after the refill refused")
	}
	var off *keyLimiter
	h, _, ok = off.reserve("x", now)
	if !ok {
		t.Error("disabled limiter refused")
	}
	h.spend(now)
	h.release()
}
