package main

import (
	"context"
	"time"

	"github.com/teammemd/teammemd/internal/proclab"
)

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
