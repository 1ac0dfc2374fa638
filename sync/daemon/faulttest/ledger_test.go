package faulttest

import (
	"fmt"
	"sync"
	"time"
)

// timing is the daemons' watcher timing in the suites, and the slack the
// ledger gives a daemon to act once it must.
type timing struct {
	debounce, maxWait, slack time.Duration
}

// suiteTiming is what both suites run with.
var suiteTiming = timing{debounce: 300 * time.Millisecond, maxWait: time.Second, slack: 2 * time.Second}

// config is the [daemon] section that gives the daemons this timing.
func (tm timing) config() string {
	return fmt.Sprintf("[daemon]\ndebounce = %q\nmax_wait = %q\n", tm.debounce, tm.maxWait)
}

// span is a stretch of time, from included, to excluded.
type span struct{ from, to time.Time }

func (s span) length() time.Duration { return s.to.Sub(s.from) }

// intersect returns the overlap of s and o; ok is false when there is none.
func (s span) intersect(o span) (span, bool) {
	out := span{from: later(s.from, o.from), to: earlier(s.to, o.to)}
	return out, out.to.After(out.from)
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func earlier(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// uptime records when one side's daemon was up: from the end of its first
// pull after a start to just before a kill (or a network fault phase).
type uptime struct {
	mu    sync.Mutex
	spans []span
	since time.Time // start of the open span; zero while down
}

func (u *uptime) markUp(t time.Time) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.since.IsZero() {
		u.since = t
	}
}

func (u *uptime) markDown(t time.Time) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if !u.since.IsZero() {
		u.spans = append(u.spans, span{u.since, t})
		u.since = time.Time{}
	}
}

// snapshot returns the spans, an open one ending at end.
func (u *uptime) snapshot(end time.Time) []span {
	u.mu.Lock()
	defer u.mu.Unlock()
	out := append([]span(nil), u.spans...)
	if !u.since.IsZero() {
		out = append(out, span{u.since, end})
	}
	return out
}

// duty says whether a daemon had to keep a save (push it, or keep it as a
// conflict copy), and why. A save the writer itself overwrote before the
// daemon had a fair chance to read it is excused.
type duty struct {
	required bool
	why      string
}

// never is later than any test runs.
var never = time.Now().Add(100 * 365 * 24 * time.Hour)

// dutyOf decides the duty for saves[i], one side's saves in order, given
// when the side's daemon was up. The save lives on disk from its end until
// the side's next save of the same key starts. The daemon must have kept
// it when, in that life, it was up for maxWait+slack (the watcher pushes
// at most maxWait after a change, however busy the directory), or up
// while the directory was quiet for debounce+slack (no save of any note on
// that side). It must also have kept a save it replaced itself (the
// writer's next save of the note found something else there), and the
// side's last save of a key.
func dutyOf(saves []save, i int, up []span, tm timing, show labels) duty {
	s := saves[i]
	life := span{s.end, never}
	j := i + 1
	for ; j < len(saves); j++ {
		if saves[j].key == s.key {
			life.to = saves[j].start
			break
		}
	}
	if j == len(saves) {
		return duty{true, "it is the last save of the note on this side"}
	}
	if next := saves[j]; next.overwrote != s.sum {
		return duty{true, fmt.Sprintf("the daemon replaced it: the writer's next save of the note, at %s, found %s there", show.at(next.start), show.sum(next.overwrote))}
	}
	for _, u := range up {
		if I, ok := life.intersect(u); ok && I.length() >= tm.maxWait+tm.slack {
			return duty{true, fmt.Sprintf("it was on disk and the daemon up from %s to %s", show.at(I.from), show.at(I.to))}
		}
	}
	for _, gap := range quietGaps(saves, i, life) {
		for _, u := range up {
			if I, ok := gap.intersect(u); ok && I.length() >= tm.debounce+tm.slack {
				return duty{true, fmt.Sprintf("the directory was quiet and the daemon up from %s to %s", show.at(I.from), show.at(I.to))}
			}
		}
	}
	return duty{false, "overwritten by the writer before the daemon had to read it"}
}

// labels show times and checksums in messages.
type labels struct {
	at  func(time.Time) string // a time, relative to the run's start
	sum func(string) string    // a checksum, with the save that wrote it
}

// quietGaps splits the life of saves[i] at the side's other saves.
func quietGaps(saves []save, i int, life span) []span {
	var out []span
	from := life.from
	for _, o := range saves[i+1:] {
		if !o.start.Before(life.to) {
			break
		}
		out = append(out, span{from, o.start})
		from = o.end
	}
	return append(out, span{from, life.to})
}
