package main

import "testing"

func TestBurstRelease(t *testing.T) {
	var n int
	b := &burstRelease{release: func() { n++ }}
	steps := []struct {
		name string
		do   func()
		want int
	}{
		{"a flush before any large sync", b.afterFlush, 0},
		{"a large sync", b.afterSync, 1},
		{"the flush after it", b.afterFlush, 2},
		{"the next flush", b.afterFlush, 2},
		{"two large syncs", func() { b.afterSync(); b.afterSync() }, 4},
		{"the flush after them", b.afterFlush, 5},
		{"the next flush again", b.afterFlush, 5},
	}
	for _, s := range steps {
		s.do()
		if n != s.want {
			t.Fatalf("after %s: %d releases, want %d", s.name, n, s.want)
		}
	}
}
