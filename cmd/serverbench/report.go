package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
)

// Goals of a teammemd server against the floor of its round.
const (
	goalRatio = 0.5
	goalP99   = 25 * time.Millisecond
)

// printResults writes one row per server and round, with the ratio to the
// floor of the same round.
func printResults(w io.Writer, o options, rows []row) error {
	fmt.Fprintf(w, "%d clients, %d durable PUTs of one %d-byte note a server and round, If-Match chained, secret scan on\n",
		o.clients, o.puts, o.size)
	floors := map[int]float64{}
	for _, r := range rows {
		if r.kind == kindFloor {
			floors[r.round] = r.load.rate()
		}
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "round\tserver\tPUT/s\tp50\tp99\tserver CPU a PUT\tswitches a PUT\tvs floor\tgoal (>= 0.5x, p99 <= 25 ms)")
	for _, kind := range []string{kindFloor, kindFloorSQLite, kindFloorPostgres, kindSQLite, kindSQLite + oldSuffix, kindPostgres, kindPostgres + oldSuffix} {
		for _, r := range rows {
			if r.kind != kind {
				continue
			}
			ratio := r.load.rate() / floors[r.round]
			fmt.Fprintf(tw, "%d\t%s\t%.0f\t%s\t%s\t%s\t%.1f\t%.2fx\t%s\n", r.round, r.kind, r.load.rate(),
				ms(r.load.p50), ms(r.load.p99), ms(r.load.cpuPerPut()), r.load.switchesPerPut(), ratio, verdict(r.kind, ratio, r.load.p99))
		}
	}
	return tw.Flush()
}

// verdict says whether a teammemd server met the goals.
func verdict(kind string, ratio float64, p99 time.Duration) string {
	switch {
	case strings.HasPrefix(kind, kindFloor):
		return "-"
	case ratio >= goalRatio && p99 <= goalP99:
		return "met"
	default:
		return "missed"
	}
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Nanoseconds())/1e6) }
