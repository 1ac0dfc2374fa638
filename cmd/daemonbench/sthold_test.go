package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// stLog is Syncthing 1.19.2's aggregator trace as daemonbench runs it,
// cut from one run: a save that finds the timer stopped, then (after a
// burst left events it never sends) saves that find it ticking.
const stLog = `[CGANA] 2026/11/29 06:41:33.607209 DEBUG: aggregator/"bench" (bench): No tracked events, waiting for new event.
[CGANA] 2026/11/29 06:41:34.622411 DEBUG: aggregator/"bench" (bench): Tracking (type non-remove): MEMORY.md
[CGANA] 2026/11/29 06:41:34.622548 DEBUG: aggregator/"bench" (bench): Resetting notifyTimer to 1s
[CGANA] 2026/11/29 06:41:34.622577 DEBUG: aggregator/"bench" (bench): Already tracked (type non-remove): MEMORY.md
[CGANA] 2026/11/29 06:41:35.623886 DEBUG: aggregator/"bench" (bench): Notifying about 1 fs events
[CGANA] 2026/11/29 06:41:35.623959 DEBUG: aggregator/"bench" (bench): Resetting notifyTimer to 1s
[CGANA] 2026/11/29 06:41:36.624872 DEBUG: aggregator/"bench" (bench): No tracked events, waiting for new event.
[CGANA] 06:42:00 INFO: a line of another kind
[CGANA] 2026/11/29 06:43:51.207250 DEBUG: aggregator/"bench" (bench): No old fs events
[CGANA] 2026/11/29 06:43:51.207285 DEBUG: aggregator/"bench" (bench): Resetting notifyTimer to 1s
[CGANA] 2026/11/29 06:43:51.286831 DEBUG: aggregator/"bench" (bench): Tracking (type non-remove): MEMORY.md
[CGANA] 2026/11/29 06:43:52.208084 DEBUG: aggregator/"bench" (bench): Notifying about 1 fs events
[CGANA] 2026/11/29 06:43:52.208259 DEBUG: aggregator/"bench" (bench): Resetting notifyTimer to 1s
[CGANA] 2026/11/29 06:43:53.009064 DEBUG: aggregator/"bench" (bench): Tracking (type non-remove): MEMORY.md
[CGANA] 2026/11/29 06:43:53.209064 DEBUG: aggregator/"bench" (bench): No old fs events
[CGANA] 2026/11/29 06:43:53.209267 DEBUG: aggregator/"bench" (bench): Resetting notifyTimer to 1s
[CGANA] 2026/11/29 06:43:54.209737 DEBUG: aggregator/"bench" (bench): Notifying about 1 fs events
`

func stTime(t *testing.T, s string) time.Time {
	t.Helper()
	at, err := time.ParseInLocation(stLogTime, "2026/11/29 "+s, time.Local)
	if err != nil {
		t.Fatal(err)
	}
	return at
}

func TestHoldOf(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.log")
	if err := os.WriteFile(path, []byte(stLog), 0o600); err != nil {
		t.Fatal(err)
	}
	lines, err := readAggregatorLog(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 16 {
		t.Fatalf("read %d aggregator lines, want 16 (the line of another kind left out)", len(lines))
	}
	tests := []struct {
		name  string
		start string
		want  hold
	}{
		{"timer stopped: the save sets it going", "06:41:34.621000", hold{held: 1001475 * time.Microsecond}},
		{"timer ticking: sent at the next tick", "06:43:51.286000", hold{held: 921253 * time.Microsecond, ticking: true}},
		{"timer ticking, the save too young at the first tick", "06:43:53.008500", hold{held: 1200673 * time.Microsecond, ticking: true}},
	}
	for _, tt := range tests {
		got, err := holdOf(lines, "MEMORY.md", stTime(t, tt.start))
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got != tt.want {
			t.Errorf("%s: holdOf = %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

func TestHoldOfMissing(t *testing.T) {
	lines := []stLine{
		{at: stTime(t, "06:41:34.622411"), text: `"bench" (bench): Tracking (type non-remove): MEMORY.md`},
	}
	for _, start := range []string{"06:41:35.000000", "06:41:34.000000"} {
		_, err := holdOf(lines, "MEMORY.md", stTime(t, start))
		if err == nil || !strings.Contains(err.Error(), "MEMORY.md") {
			t.Errorf("holdOf from %s: err = %v, want one naming the file", start, err)
		}
	}
}
