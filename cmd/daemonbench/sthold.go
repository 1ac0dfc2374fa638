package main

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"time"
)

// hold is how long the saving side's watcher held one save back before it
// sent it: from the moment it saw the save's file event to the moment it
// handed the change on.
type hold struct {
	// held is that time as the watcher's own record shows it; edits uses
	// it only for a save that found the timer ticking.
	held time.Duration
	// ticking is set when the watcher's timer was already running when the
	// save came: the save went out at the timer's next tick, not a full
	// delay after the save.
	ticking bool
}

// Syncthing's watch aggregator, traced (STTRACE=watchaggregator) with
// microsecond times (--logflags=7), writes a line for each file event it
// takes in, one each time it sets its timer going, one for a tick that
// sends nothing, and one when it hands events on to the scanner. An event
// that finds the timer stopped sets it going before any tick. After a
// burst it may keep its timer ticking every delay with events it never
// sends ("No old fs events"); a save that comes then is sent at the next
// tick where it is older than half the delay, anywhere from half a delay
// to one and a half after the save.
const (
	stLogTime    = "2006/01/02 15:04:05.000000"
	stTracking   = "Tracking (type "        // a first event for a path
	stTracked    = "Already tracked (type " // a later one
	stTimerStart = "Resetting notifyTimer"  // the timer set going again: by the event, when it had stopped
	stNoOld      = "No old fs events"       // a tick of a running timer that sent nothing
	stNotify     = "Notifying about "
)

// stLine is one line of the aggregator's trace.
type stLine struct {
	at   time.Time
	text string
}

// readAggregatorLog reads the aggregator's lines of a Syncthing log.
func readAggregatorLog(path string) ([]stLine, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read syncthing log: %w", err)
	}
	defer f.Close()
	var out []stLine
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		if l, ok := parseAggregatorLine(sc.Text()); ok {
			out = append(out, l)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read syncthing log %s: %w", path, err)
	}
	return out, nil
}

// parseAggregatorLine parses "[DEVID] 2026/11/29 06:43:51.286831 DEBUG:
// aggregator/…: text"; any other line is not one.
func parseAggregatorLine(s string) (stLine, bool) {
	_, rest, ok := strings.Cut(s, "] ")
	if !ok || len(rest) < len(stLogTime) {
		return stLine{}, false
	}
	at, err := time.ParseInLocation(stLogTime, rest[:len(stLogTime)], time.Local)
	if err != nil {
		return stLine{}, false
	}
	_, text, ok := strings.Cut(rest[len(stLogTime):], " DEBUG: aggregator/")
	if !ok {
		return stLine{}, false
	}
	return stLine{at: at, text: text}, true
}

// holdOf finds in lines how long the aggregator held the save of rel
// written at start: its first event for rel at or after start, and the
// first hand-on after that event.
func holdOf(lines []stLine, rel string, start time.Time) (hold, error) {
	seen := -1
	for i, l := range lines {
		if !l.at.Before(start.Truncate(time.Microsecond)) && isEvent(l.text) && strings.HasSuffix(l.text, ": "+rel) {
			seen = i
			break
		}
	}
	if seen < 0 {
		return hold{}, fmt.Errorf("syncthing's log has no event for %s written at %s", rel, start.Format(stLogTime))
	}
	started, decided := false, false
	for _, l := range lines[seen+1:] {
		switch {
		case decided:
		case strings.Contains(l.text, stTimerStart):
			started, decided = true, true
		case strings.Contains(l.text, stNoOld), strings.Contains(l.text, stNotify):
			decided = true // a tick came first: the timer was running
		}
		if strings.Contains(l.text, stNotify) {
			return hold{held: l.at.Sub(lines[seen].at), ticking: !started}, nil
		}
	}
	return hold{}, fmt.Errorf("syncthing's log does not show the save of %s written at %s sent", rel, start.Format(stLogTime))
}

// isEvent reports a line for a file event the aggregator took in.
func isEvent(text string) bool {
	return strings.Contains(text, stTracking) || strings.Contains(text, stTracked)
}
