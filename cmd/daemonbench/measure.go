package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/teammemd/teammemd/internal/proclab"
	"github.com/teammemd/teammemd/watch"
)

// defaultDebounce is the debounce the daemons run with (no config).
const defaultDebounce = watch.DefaultDebounce

// poll is how often the teammate's directory is checked.
const poll = 5 * time.Millisecond

// editResult is the save-to-teammate latency of single-file edits.
type editResult struct {
	median, p95, max time.Duration
}

// measureEdits saves MEMORY.md on A n times, each time waiting until B
// holds the new content.
func measureEdits(ctx context.Context, p pair, n int) (editResult, error) {
	var lat []time.Duration
	for i := range n {
		content := []byte(fmt.Sprintf("# team memory\nedit %d at %d\n", i, time.Now().UnixNano()))
		start := time.Now()
		if err := os.WriteFile(filepath.Join(p.a.Dir, "MEMORY.md"), content, 0o644); err != nil {
			return editResult{}, err
		}
		if err := waitContent(ctx, filepath.Join(p.b.Dir, "MEMORY.md"), content, 60*time.Second); err != nil {
			return editResult{}, err
		}
		lat = append(lat, time.Since(start))
	}
	slices.Sort(lat)
	return editResult{median: lat[len(lat)/2], p95: lat[(len(lat)*95+99)/100-1], max: lat[len(lat)-1]}, nil
}

// burstResult is how long a burst of files took to reach the teammate.
type burstResult struct {
	files     int
	write     time.Duration // writing them on A
	lastFile  time.Duration // from the first write until the last file is on B
	afterLast time.Duration // from the last write until the last file is on B
}

// measureBurst writes files of size bytes on A as fast as it can and waits
// until every one of them is on B.
func measureBurst(ctx context.Context, p pair, files, size int) (burstResult, error) {
	body := append(bytes.Repeat([]byte("x"), size-1), '\n')
	names := make([]string, files)
	start := time.Now()
	for i := range names {
		names[i] = filepath.Join("burst", fmt.Sprintf("f%05d.md", i))
		path := filepath.Join(p.a.Dir, names[i])
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return burstResult{}, err
		}
		if err := os.WriteFile(path, body, 0o644); err != nil {
			return burstResult{}, err
		}
	}
	written := time.Now()
	for _, name := range names {
		if err := waitContent(ctx, filepath.Join(p.b.Dir, name), body, 5*time.Minute); err != nil {
			return burstResult{}, err
		}
	}
	done := time.Now()
	return burstResult{files: files, write: written.Sub(start), lastFile: done.Sub(start), afterLast: done.Sub(written)}, nil
}

// waitContent polls path until it holds want.
func waitContent(ctx context.Context, path string, want []byte, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		if got, err := os.ReadFile(path); err == nil && bytes.Equal(got, want) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s did not get its content within %s", path, limit)
		}
		if err := pause(ctx, poll); err != nil {
			return err
		}
	}
}

// idleResult is one daemon's footprint while nothing changes.
type idleResult struct {
	rssKB, anonKB, peakKB int64
	cpuPercent            float64
	window                time.Duration
}

// measureIdle lets the daemon settle, then reads its resident memory and
// the CPU it uses over window, as a percentage of one core.
func measureIdle(ctx context.Context, n *proclab.Daemon, settle, window time.Duration) (idleResult, error) {
	if err := pause(ctx, settle); err != nil {
		return idleResult{}, err
	}
	proc := n.Proc()
	before, err := proclab.CPUTime(proc.Pid())
	if err != nil {
		return idleResult{}, err
	}
	if err := pause(ctx, window); err != nil {
		return idleResult{}, err
	}
	after, err := proclab.CPUTime(proc.Pid())
	if err != nil {
		return idleResult{}, err
	}
	res := idleResult{window: window, cpuPercent: (after - before).Seconds() / window.Seconds() * 100}
	if res.rssKB, err = proc.MemoryKB("VmRSS"); err != nil {
		return idleResult{}, err
	}
	if res.anonKB, err = proc.MemoryKB("RssAnon"); err != nil {
		return idleResult{}, err
	}
	if res.peakKB, err = proc.MemoryKB("VmHWM"); err != nil {
		return idleResult{}, err
	}
	return res, nil
}
