package main

import (
	"fmt"
	"io"
	"slices"
	"text/tabwriter"
	"time"
)

// Goals the numbers are held against.
const (
	burstGoal     = time.Second // last write on A to last file on B, minus the debounce
	idleRSSGoalKB = 32 * 1024
)

// results are everything one run measured.
type results struct {
	debounce time.Duration
	rounds   []roundResult
	idle     idleResult
	trace    []traceStep
}

// print writes the results as tables.
func (r results) print(w io.Writer, o options) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "Each figure minus the delay (%s): from the write on A to the file with that SHA-256 on B; saves %s apart.\n", r.debounce, o.gap)
	fmt.Fprintf(tw, "A save that found the watcher's timer already running, sent at its next tick: minus the time it was held back instead.\n\n")
	fmt.Fprintf(tw, "CPU: user and system time of every process of the daemon (both sides, and teammemd's server), over the edits with their pauses, or over the burst.\n\n")
	fmt.Fprintf(tw, "round\tdaemon\tsave median\tsave p95\tsave max\tsaves sent at a running tick\tCPU a save\tburst: write on A\tburst: last file on B after last write\tburst CPU\n")
	for _, x := range r.rounds {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%d of %d\t%s\t%s\t%s\t%s\n", x.round, x.peer, ms(x.edits.median()), ms(x.edits.p95()),
			ms(x.edits.max()), x.edits.ticking, len(x.edits.overheads), ms(x.edits.cpuPerSave()),
			ms(x.burst.write), ms(x.burst.afterLast), ms(x.burst.cpu))
	}
	fmt.Fprintln(tw)
	fmt.Fprintf(tw, "daemon\tsave median (%d edits)\tsave p95\tCPU a save\tburst median of %d rounds\tburst goal\tburst CPU, median\n", o.edits*o.rounds, o.rounds)
	sums := map[string]summary{}
	var names []string
	for _, x := range r.rounds {
		if !slices.Contains(names, x.peer) {
			names = append(names, x.peer)
		}
		s := sums[x.peer]
		s.edits = append(s.edits, x.edits.overheads...)
		s.bursts = append(s.bursts, x.burst.afterLast)
		s.editCPU += x.edits.cpu
		s.burstCPU = append(s.burstCPU, x.burst.cpu)
		sums[x.peer] = s
	}
	for _, n := range names {
		s := sums[n]
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t<= %s\t%s\n", n, ms(s.median()), ms(s.p95()), ms(s.cpuPerSave()), ms(s.burst()), ms(burstGoal), ms(quantile(s.burstCPU, 50)))
	}
	if len(names) == 2 {
		a, b := sums[names[0]], sums[names[1]]
		fmt.Fprintf(tw, "%s - %s\t%s\t%s\t%s\t%s\t\t%s\n", names[0], names[1], ms(a.median()-b.median()), ms(a.p95()-b.p95()),
			ms(a.cpuPerSave()-b.cpuPerSave()), ms(a.burst()-b.burst()), ms(quantile(a.burstCPU, 50)-quantile(b.burstCPU, 50)))
	}
	if r.idle.window > 0 {
		fmt.Fprintln(tw)
		fmt.Fprintf(tw, "idle RSS of one daemon (VmRSS)\t%.1f MiB\t<= %d MiB\n", float64(r.idle.rssKB)/1024, idleRSSGoalKB/1024)
		fmt.Fprintf(tw, "... of it the daemon's own memory, not the executable's pages (RssAnon)\t%.1f MiB\t\n", float64(r.idle.anonKB)/1024)
		fmt.Fprintf(tw, "peak RSS of that daemon (VmHWM)\t%.1f MiB\t\n", float64(r.idle.peakKB)/1024)
		fmt.Fprintf(tw, "idle CPU over %s\t%.2f%% of one core\t\n", r.idle.window, r.idle.cpuPercent)
	}
	if len(r.trace) > 0 {
		fmt.Fprintln(tw)
		fmt.Fprintf(tw, "one save, traced (the median of %d)\t\t\t\n", traceSaves)
		fmt.Fprintf(tw, "at\tsince previous\twho\tstep\n")
		prev := time.Duration(0)
		for _, s := range r.trace {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", ms(s.at), ms(s.at-prev), s.who, s.step)
			prev = s.at
		}
	}
	return tw.Flush()
}

// summary pools one daemon's rounds.
type summary struct {
	edits, bursts []time.Duration
	editCPU       time.Duration // over every edit
	burstCPU      []time.Duration
}

// cpuPerSave is the CPU time of every edit of every round over their number.
func (s summary) cpuPerSave() time.Duration { return s.editCPU / time.Duration(len(s.edits)) }

func (s summary) median() time.Duration { return quantile(s.edits, 50) }
func (s summary) p95() time.Duration    { return quantile(s.edits, 95) }
func (s summary) burst() time.Duration  { return quantile(s.bursts, 50) }

// quantile is the q-th percentile of ds, nearest rank.
func quantile(ds []time.Duration, q int) time.Duration {
	s := slices.Sorted(slices.Values(ds))
	return s[max((len(s)*q+99)/100-1, 0)]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }
