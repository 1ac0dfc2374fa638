package main

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"
)

// Goals the numbers are held against.
const (
	editGoalSlack  = 300 * time.Millisecond // p95 save-to-teammate: debounce + this
	burstGoalSlack = 1500 * time.Millisecond
	idleRSSGoalKB  = 32 * 1024
)

// results are everything one run measured.
type results struct {
	debounce time.Duration
	edits    editResult
	burst    burstResult
	idle     idleResult
}

// print writes the results as a table.
func (r results) print(w io.Writer, o options) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "metric\tvalue\tgoal\n")
	fmt.Fprintf(tw, "save-to-teammate median (%d edits)\t%s\t\n", o.edits, ms(r.edits.median))
	fmt.Fprintf(tw, "save-to-teammate p95\t%s\t<= %s\n", ms(r.edits.p95), ms(r.debounce+editGoalSlack))
	fmt.Fprintf(tw, "save-to-teammate max\t%s\t\n", ms(r.edits.max))
	fmt.Fprintf(tw, "burst: write %d x %d B on A\t%s\t\n", r.burst.files, o.size, ms(r.burst.write))
	fmt.Fprintf(tw, "burst: last file on B, from first write\t%s\t<= %s\n", ms(r.burst.lastFile), ms(r.debounce+burstGoalSlack))
	fmt.Fprintf(tw, "burst: last file on B, from last write\t%s\t\n", ms(r.burst.afterLast))
	fmt.Fprintf(tw, "idle RSS of one daemon (VmRSS)\t%.1f MiB\t<= %d MiB\n", float64(r.idle.rssKB)/1024, idleRSSGoalKB/1024)
	fmt.Fprintf(tw, "... of it the daemon's own memory, not the executable's pages (RssAnon)\t%.1f MiB\t\n", float64(r.idle.anonKB)/1024)
	fmt.Fprintf(tw, "peak RSS of that daemon (VmHWM)\t%.1f MiB\t\n", float64(r.idle.peakKB)/1024)
	fmt.Fprintf(tw, "idle CPU over %s\t%.2f%% of one core\t\n", r.idle.window, r.idle.cpuPercent)
	return tw.Flush()
}

func ms(d time.Duration) string { return fmt.Sprintf("%d ms", d.Milliseconds()) }
