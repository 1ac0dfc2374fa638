// Command historybench measures what history requests cost the server's
// memory as users run it: it starts "teammemd serve" on a loopback port
// with a temporary database, writes a repo full of large revisions, starts
// the server again so that it begins from its idle footprint, sends
// parallel requests for the largest history page (limit=500, with
// content), and reports how much they added to the server's resident set
// (VmRSS before, VmHWM at the peak, from /proc/<pid>/status). With -old it
// first measures another teammemd binary, such as one built from an older
// commit, the same way. It always stops its processes and removes its
// temporary files, also on error or Ctrl-C.
//
//	go run ./cmd/historybench [-old /path/to/old/teammemd] [-revisions 500] [-size 242000] [-parallel 12]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/teammemd/teammemd/internal/proclab"
)

// options are the command's flags.
type options struct {
	old       string
	tags      string
	revisions int
	size      int
	parallel  int
	timeout   time.Duration
	keep      bool
}

func main() { proclab.Main("historybench", run) }

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("historybench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	fs.StringVar(&o.old, "old", "", "a teammemd `binary` to measure first, e.g. built from an older commit")
	fs.StringVar(&o.tags, "tags", "", "build tags passed to go build for the binary of this tree")
	fs.IntVar(&o.revisions, "revisions", 500, "revisions to write, 8 to a PUT")
	fs.IntVar(&o.size, "size", 242_000, "bytes of each revision's content (at most 250000)")
	fs.IntVar(&o.parallel, "parallel", 12, "history requests sent at once")
	fs.DurationVar(&o.timeout, "timeout", 10*time.Minute, "bound on the whole run")
	fs.BoolVar(&o.keep, "keep", false, "keep the temporary directory (logs, database) for inspection")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if o.revisions < 1 || o.revisions > 10_000 || o.size < 1 || o.size > 250_000 || o.parallel < 1 || o.parallel > 100 {
		return errors.New("-revisions must be 1 to 10000, -size 1 to 250000 and -parallel 1 to 100")
	}
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	var rows []result
	if o.old != "" {
		r, err := benchBinary(ctx, o, o.old, stderr)
		if err != nil {
			return fmt.Errorf("%s: %w", o.old, err)
		}
		rows = append(rows, r)
	}
	r, err := benchBinary(ctx, o, "", stderr)
	if err != nil {
		return fmt.Errorf("this tree: %w", err)
	}
	return printResults(stdout, o, append(rows, r))
}
