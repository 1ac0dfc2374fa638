// Command daemonbench measures the teammemd daemon as users run it: it builds
// teammemd, starts "teammemd serve" on a loopback port with a temporary
// database, creates a token, starts two "teammemd run" daemons on temporary
// team directories, and reports the save-to-teammate latency of single-file
// edits, the time a burst of files takes to reach the teammate, and one
// daemon's idle memory (VmRSS) and CPU. It always stops its processes and
// removes its temporary files, also on error or Ctrl-C.
//
//	go run ./cmd/daemonbench [-tags TAGS] [-edits 20] [-burst 1000] [-idle 60s]
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
	tags   string
	edits  int
	burst  int
	size   int
	idle   time.Duration
	settle time.Duration
	keep   bool
}

func main() { proclab.Main("daemonbench", run) }

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("daemonbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	fs.StringVar(&o.tags, "tags", "", "build tags passed to go build")
	fs.IntVar(&o.edits, "edits", 20, "single-file edits to time")
	fs.IntVar(&o.burst, "burst", 1000, "files in the burst")
	fs.IntVar(&o.size, "size", 4096, "bytes per burst file")
	fs.DurationVar(&o.idle, "idle", 60*time.Second, "how long to measure idle CPU")
	fs.DurationVar(&o.settle, "settle", 10*time.Second, "quiet time before the idle measurement")
	fs.BoolVar(&o.keep, "keep", false, "keep the temporary directory (logs, state) for inspection")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if o.edits < 1 || o.burst < 1 || o.size < 1 || o.idle <= 0 {
		return errors.New("-edits, -burst, -size and -idle must be positive")
	}
	return bench(ctx, o, stdout, stderr)
}

// bench sets up the server and two daemons, measures, and tears down.
func bench(ctx context.Context, o options, stdout, stderr io.Writer) (err error) {
	lab, err := newLab(o.keep, stderr)
	if err != nil {
		return err
	}
	defer lab.close()
	pair, err := lab.start(ctx, o.tags)
	if err != nil {
		return err
	}
	var res results
	if res.edits, err = measureEdits(ctx, pair, o.edits); err != nil {
		return fmt.Errorf("edits: %w", err)
	}
	if res.burst, err = measureBurst(ctx, pair, o.burst, o.size); err != nil {
		return fmt.Errorf("burst: %w", err)
	}
	if res.idle, err = measureIdle(ctx, pair.a, o.settle, o.idle); err != nil {
		return fmt.Errorf("idle: %w", err)
	}
	res.debounce = defaultDebounce
	return res.print(stdout, o)
}
