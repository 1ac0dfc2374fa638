package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/teammemd/teammemd/internal/proclab"
)

// saveLimit bounds the wait for one save to reach the teammate.
const saveLimit = 60 * time.Second

// burstLimit bounds the wait for a burst.
const burstLimit = 5 * time.Minute

// peer is one way of keeping a directory the same as a teammate's:
// teammemd's two daemons and server, or two Syncthing instances.
type peer interface {
	name() string
	// dirs are the saving side's directory and the teammate's.
	dirs() (a, b string)
	// delay is the quiet time the saving side waits after a write before
	// it sends: the debounce, or Syncthing's fsWatcherDelayS.
	delay() time.Duration
	// check reports a process of the peer that exited.
	check(ctx context.Context) error
	// holds tells how long the saving side held back each save of rel
	// written at starts before it sent it.
	holds(rel string, starts []time.Time) ([]hold, error)
	// pids are the peer's processes: both sides, and a server if any.
	pids() []int
}

// cpuOver runs run and returns the CPU time, user and system, the
// peer's processes used meanwhile.
func cpuOver(p peer, run func() error) (time.Duration, error) {
	before, err := cpuTime(p)
	if err != nil {
		return 0, err
	}
	if err := run(); err != nil {
		return 0, err
	}
	after, err := cpuTime(p)
	return after - before, err
}

// cpuTime is the CPU time, user and system, the peer's processes have
// used so far.
func cpuTime(p peer) (time.Duration, error) {
	var sum time.Duration
	for _, pid := range p.pids() {
		t, err := proclab.CPUTime(pid)
		if err != nil {
			return 0, fmt.Errorf("%s: %w", p.name(), err)
		}
		sum += t
	}
	return sum, nil
}

// rig times saves on a peer's A as they land on its B.
type rig struct {
	p    peer
	a, b string
	arr  *arrivals
}

func newRig(p peer) (*rig, error) {
	a, b := p.dirs()
	arr, err := watchArrivals(b)
	if err != nil {
		return nil, err
	}
	return &rig{p: p, a: a, b: b, arr: arr}, nil
}

func (r *rig) close() error { return r.arr.close() }

// save writes content to rel on A and returns when it was written and
// when B held it.
func (r *rig) save(ctx context.Context, rel string, content []byte) (start, landed time.Time, err error) {
	r.arr.drain()
	path := filepath.Join(r.a, filepath.FromSlash(rel))
	start = time.Now()
	if err := os.WriteFile(path, content, 0o644); err != nil {
		return start, start, fmt.Errorf("save %s: %w", rel, err)
	}
	landed, err = r.arr.wait(ctx, map[string][32]byte{rel: sha256.Sum256(content)}, saveLimit, r.p.check)
	if err != nil {
		return start, start, fmt.Errorf("%s: %w", r.p.name(), err)
	}
	return start, landed, nil
}

// warmUp makes one save and waits for it, so that the peers are
// connected and past their start-up scans.
func (r *rig) warmUp(ctx context.Context) error {
	_, _, err := r.save(ctx, "warmup.md", []byte(fmt.Sprintf("warm up at %d\n", time.Now().UnixNano())))
	return err
}

// editResult is the overhead over the peer's delay of single-file edits:
// from the write on A to the matching file on B, minus the delay; for a
// save that found the watcher's timer already running, minus the time the
// watcher held it back instead (see hold).
type editResult struct {
	overheads []time.Duration // sorted
	ticking   int             // saves sent at a tick of a timer already running
	cpu       time.Duration   // the peer's processes' CPU time over the edits (set by measureRounds)
}

// cpuPerSave is the peer's CPU time over the edits, pauses included,
// divided by the number of saves.
func (e editResult) cpuPerSave() time.Duration { return e.cpu / time.Duration(len(e.overheads)) }

func (e editResult) median() time.Duration { return e.overheads[len(e.overheads)/2] }
func (e editResult) p95() time.Duration {
	return e.overheads[(len(e.overheads)*95+99)/100-1]
}
func (e editResult) max() time.Duration { return e.overheads[len(e.overheads)-1] }

// edits saves MEMORY.md on A n times, each time waiting until B holds
// the new content and then gap more.
//
// The gap matters for Syncthing: its watcher checks for changes at
// intervals of its delay from the last time it sent a batch, and sends the
// changes older than half the delay. A save made right after the last one
// landed finds that timer running and is sent one delay after the last
// batch, not after the save, so its figure is the difference of two saves'
// latencies. After a pause longer than the delay the timer has stopped and
// the save starts it, as a save after a pause does on a user's machine.
//
// A watcher whose timer keeps ticking (Syncthing's can, after a burst)
// sends a save at its next tick, from half a delay to one and a half after
// the save, whatever the pause; such a save is timed from the write minus
// the time it was held back, so that its figure is, as every other one,
// what it took beyond its own debounce.
func (r *rig) edits(ctx context.Context, n int, gap time.Duration) (editResult, error) {
	const rel = "MEMORY.md"
	var starts, landings []time.Time
	for i := range n {
		if err := pause(ctx, gap); err != nil {
			return editResult{}, err
		}
		content := []byte(fmt.Sprintf("# team memory\nedit %d at %d\n", i, time.Now().UnixNano()))
		start, landed, err := r.save(ctx, rel, content)
		if err != nil {
			return editResult{}, err
		}
		starts, landings = append(starts, start), append(landings, landed)
	}
	holds, err := r.p.holds(rel, starts)
	if err != nil {
		return editResult{}, err
	}
	var res editResult
	for i, h := range holds {
		held := r.p.delay()
		if h.ticking {
			held = h.held
			res.ticking++
		}
		res.overheads = append(res.overheads, landings[i].Sub(starts[i])-held)
	}
	slices.Sort(res.overheads)
	return res, nil
}

// burstResult is how long a burst of files took to reach the teammate.
type burstResult struct {
	files     int
	write     time.Duration // writing them on A
	lastFile  time.Duration // from the first write until the last file is on B
	afterLast time.Duration // from the last write until the last file is on B, minus the delay
	cpu       time.Duration // the peer's processes' CPU time over the burst (set by measureRounds)
}

// burst writes files of size bytes on A as fast as it can and waits until
// every one of them is on B with its content. Each round writes the same
// names with new content: the first creates them, the next overwrite.
func (r *rig) burst(ctx context.Context, files, size, round int) (burstResult, error) {
	r.arr.drain()
	head := fmt.Sprintf("round %d of %s\n", round, r.p.name())
	body := append([]byte(head), bytes.Repeat([]byte("x"), max(size-len(head)-1, 0))...)
	body = append(body, '\n')
	want := make(map[string][32]byte, files)
	if err := os.MkdirAll(filepath.Join(r.a, "burst"), 0o755); err != nil {
		return burstResult{}, fmt.Errorf("create burst directory: %w", err)
	}
	start := time.Now()
	for i := range files {
		rel := fmt.Sprintf("burst/f%05d.md", i)
		data := append([]byte(fmt.Sprintf("%05d ", i)), body...)
		if err := os.WriteFile(filepath.Join(r.a, filepath.FromSlash(rel)), data, 0o644); err != nil {
			return burstResult{}, fmt.Errorf("write burst: %w", err)
		}
		want[rel] = sha256.Sum256(data)
	}
	written := time.Now()
	done, err := r.arr.wait(ctx, want, burstLimit, r.p.check)
	if err != nil {
		return burstResult{}, fmt.Errorf("%s: %w", r.p.name(), err)
	}
	return burstResult{files: files, write: written.Sub(start), lastFile: done.Sub(start),
		afterLast: done.Sub(written) - r.p.delay()}, nil
}
