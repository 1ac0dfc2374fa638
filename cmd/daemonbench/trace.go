package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/teammemd/teammemd/internal/savetrace"
)

// traceSaves is how many saves the traced run makes; the one of median
// latency is shown.
const traceSaves = 5

// traceTail is how long after the file landed on B the trace keeps
// steps: the state B saves after the write, the end of A's push.
const traceTail = 100 * time.Millisecond

// traceStep is one step of the traced save.
type traceStep struct {
	at   time.Duration // since the write on A
	who  string        // A, B, server or bench
	step string
}

// traceSave runs teammemd again with its save trace on, in a lab of its
// own, with the burst's files in the repo as in the rounds, makes
// traceSaves saves and returns the steps of the one of median latency,
// from the write on A to the file landing on B.
func (l *lab) traceSave(ctx context.Context, bin string, o options) ([]traceStep, error) {
	debounce := o.debounce
	file := filepath.Join(l.dir, "save.trace")
	p, err := l.start(ctx, bin, "trace", debounce, file)
	if err != nil {
		return nil, err
	}
	r, err := newRig(p)
	if err != nil {
		return nil, err
	}
	defer r.close()
	if err := r.warmUp(ctx); err != nil {
		return nil, err
	}
	if _, err := r.burst(ctx, o.burst, o.size, 0); err != nil {
		return nil, err
	}
	type save struct{ start, landed time.Time }
	var saves []save
	for i := range traceSaves {
		if err := pause(ctx, max(traceTail, o.gap)); err != nil { // the last save's tail is over
			return nil, err
		}
		content := []byte(fmt.Sprintf("# team memory\ntraced edit %d at %d\n", i, time.Now().UnixNano()))
		start, landed, err := r.save(ctx, "MEMORY.md", content)
		if err != nil {
			return nil, err
		}
		saves = append(saves, save{start, landed})
	}
	if err := pause(ctx, traceTail); err != nil {
		return nil, err
	}
	slices.SortFunc(saves, func(x, y save) int { return cmp.Compare(x.landed.Sub(x.start), y.landed.Sub(y.start)) })
	mid := saves[len(saves)/2]
	events, err := readTrace(file)
	if err != nil {
		return nil, err
	}
	who := map[int]string{p.a.Proc().Pid(): "A", p.b.Proc().Pid(): "B", p.server.Proc().Pid(): "server"}
	return traceSteps(events, who, mid.start, mid.landed), nil
}

func readTrace(path string) ([]savetrace.Event, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("this build of teammemd wrote no save trace (%s); pass -trace=false", savetrace.EnvVar)
	}
	if err != nil {
		return nil, fmt.Errorf("open save trace: %w", err)
	}
	defer f.Close()
	return savetrace.Parse(f)
}

// traceSteps keeps the first mark of each step of each process from start
// until traceTail after landed, in time order, with the write on A and
// the file landing on B.
func traceSteps(events []savetrace.Event, who map[int]string, start, landed time.Time) []traceStep {
	out := []traceStep{{at: 0, who: "bench", step: "write on A returned"}}
	seen := map[string]bool{}
	for _, ev := range events {
		name, ok := who[ev.Pid]
		if !ok || ev.At.Before(start) || ev.At.After(landed.Add(traceTail)) || seen[name+" "+ev.Step] {
			continue
		}
		seen[name+" "+ev.Step] = true
		out = append(out, traceStep{at: ev.At.Sub(start), who: name, step: ev.Step})
	}
	out = append(out, traceStep{at: landed.Sub(start), who: "bench", step: "content on B (inotify, sha256)"})
	slices.SortStableFunc(out, func(x, y traceStep) int { return cmp.Compare(x.at, y.at) })
	return out
}
