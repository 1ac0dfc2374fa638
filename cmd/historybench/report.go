package main

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// goalKB is what the parallel requests may add to the server's resident
// set.
const goalKB = 64 * 1024

// printResults writes one row per binary measured.
func printResults(w io.Writer, o options, rows []result) error {
	fmt.Fprintf(w, "%d revisions of %d bytes in %s; %d parallel requests for history?limit=500 with content\n",
		o.revisions, o.size, benchRepo, o.parallel)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "binary\trevisions a page\tbytes a page\tRSS before\tpeak RSS\tadded\tgoal (< 64 MiB)\twall")
	for _, r := range rows {
		verdict := "met"
		if r.peakKB-r.rssKB >= goalKB {
			verdict = "missed"
		}
		fmt.Fprintf(tw, "%s\t%d\t%.1f MiB\t%s\t%s\t%s\t%s\t%d ms\n", r.binary, r.revisions, float64(r.bytes)/(1<<20),
			mib(r.rssKB), mib(r.peakKB), mib(r.peakKB-r.rssKB), verdict, r.wall.Milliseconds())
	}
	return tw.Flush()
}

func mib(kb int64) string { return fmt.Sprintf("%.1f MiB", float64(kb)/1024) }
