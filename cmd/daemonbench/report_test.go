package main

import (
	"slices"
	"testing"
	"time"

	"github.com/teammemd/teammemd/internal/savetrace"
)

func TestTurn(t *testing.T) {
	tests := []struct {
		n, round int
		want     []int
	}{
		{2, 1, []int{0, 1}},
		{2, 2, []int{1, 0}},
		{2, 3, []int{0, 1}},
		{1, 2, []int{0}},
	}
	for _, tt := range tests {
		if got := turn(tt.n, tt.round); !slices.Equal(got, tt.want) {
			t.Errorf("turn(%d, %d) = %v, want %v", tt.n, tt.round, got, tt.want)
		}
	}
}

func TestQuantile(t *testing.T) {
	ds := []time.Duration{5, 1, 4, 2, 3}
	for _, tt := range []struct {
		q    int
		want time.Duration
	}{{50, 3}, {95, 5}, {1, 1}} {
		if got := quantile(ds, tt.q); got != tt.want {
			t.Errorf("quantile(%v, %d) = %d, want %d", ds, tt.q, got, tt.want)
		}
	}
}

func TestTraceStepsKeepsFirstMarkInWindow(t *testing.T) {
	start := time.Unix(100, 0)
	at := func(ms int) time.Time { return start.Add(time.Duration(ms) * time.Millisecond) }
	events := []savetrace.Event{
		{At: at(-5), Pid: 1, Step: "push.put"},     // before the save
		{At: at(3), Pid: 1, Step: "push.put"},      // A
		{At: at(4), Pid: 1, Step: "push.put"},      // a second batch: not shown
		{At: at(2), Pid: 3, Step: "server.put"},    // server, out of file order
		{At: at(6), Pid: 2, Step: "write.renamed"}, // B
		{At: at(6), Pid: 9, Step: "other process"}, // not one of the three
		{At: at(500), Pid: 2, Step: "state.saved"}, // after the tail
	}
	got := traceSteps(events, map[int]string{1: "A", 2: "B", 3: "server"}, start, at(7))
	var steps []string
	for _, s := range got {
		steps = append(steps, s.who+" "+s.step)
	}
	want := []string{"bench write on A returned", "server server.put", "A push.put", "B write.renamed", "bench content on B (inotify, sha256)"}
	if !slices.Equal(steps, want) {
		t.Errorf("traceSteps = %q, want %q", steps, want)
	}
}
