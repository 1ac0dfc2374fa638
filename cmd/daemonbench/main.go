// Command daemonbench measures the teammemd daemon as users run it, next
// to Syncthing on the same machine: it builds teammemd, starts "teammemd
// serve" on a loopback port with a temporary database and two "teammemd
// run" daemons on temporary team directories, and two Syncthing instances
// that share a folder over 127.0.0.1 only (no discovery, relays or NAT),
// with fsWatcherDelayS at the daemons' debounce. In rounds that take turns
// between the two it times single-file edits and a burst of files from the
// write on A to the file with the same SHA-256 on B, seen through inotify,
// and reports each minus the debounce (Syncthing's watcher delay). Then it
// reports one daemon's idle memory and CPU, and where the milliseconds of
// one save go, from a run with the save trace on. It always stops its
// processes and removes its temporary files, also on error or Ctrl-C.
//
//	go run ./cmd/daemonbench [-rounds 3] [-edits 20] [-burst 1000] [-debounce 1s] [-gap 2s] [-syncthing syncthing] [-idle 60s]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os/exec"
	"time"

	"github.com/teammemd/teammemd/internal/proclab"
)

// options are the command's flags.
type options struct {
	tags      string
	syncthing string
	rounds    int
	edits     int
	burst     int
	size      int
	debounce  time.Duration
	gap       time.Duration
	idle      time.Duration
	settle    time.Duration
	trace     bool
	keep      bool
}

func main() { proclab.Main("daemonbench", run) }

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("daemonbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	fs.StringVar(&o.tags, "tags", "", "build tags passed to go build")
	fs.StringVar(&o.syncthing, "syncthing", "syncthing", "the syncthing binary to compare with; empty to measure teammemd alone")
	fs.IntVar(&o.rounds, "rounds", 3, "rounds, each timing both daemons in turn")
	fs.IntVar(&o.edits, "edits", 20, "single-file edits to time per round and daemon")
	fs.IntVar(&o.burst, "burst", 1000, "files in the burst")
	fs.IntVar(&o.size, "size", 4096, "bytes per burst file")
	fs.DurationVar(&o.debounce, "debounce", time.Second, "teammemd's debounce and Syncthing's fsWatcherDelayS (whole seconds)")
	fs.DurationVar(&o.gap, "gap", -1, "quiet time after a save lands before the next save; negative: twice the debounce, which lets Syncthing's watcher timer run out, so that each save starts it as a save after a pause does")
	fs.DurationVar(&o.idle, "idle", 60*time.Second, "how long to measure idle CPU; 0 skips the idle measurement")
	fs.DurationVar(&o.settle, "settle", 10*time.Second, "quiet time before the idle measurement")
	fs.BoolVar(&o.trace, "trace", true, "trace one save through both daemons and the server")
	fs.BoolVar(&o.keep, "keep", false, "keep the temporary directory (logs, state) for inspection")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if o.gap < 0 {
		o.gap = 2 * o.debounce
	}
	if o.rounds < 1 || o.edits < 1 || o.burst < 1 || o.size < 1 || o.idle < 0 {
		return errors.New("-rounds, -edits, -burst and -size must be positive, -idle not negative")
	}
	if o.syncthing != "" {
		bin, err := exec.LookPath(o.syncthing)
		if err != nil {
			return fmt.Errorf("find syncthing (install it, or pass -syncthing \"\" to measure teammemd alone): %w", err)
		}
		o.syncthing = bin
	}
	return bench(ctx, o, stdout, stderr)
}

// bench sets up the peers, measures them in turn, and tears down.
func bench(ctx context.Context, o options, stdout, stderr io.Writer) error {
	lab, err := newLab(o.keep, stderr)
	if err != nil {
		return err
	}
	defer lab.close()
	bin, err := lab.build(ctx, o.tags)
	if err != nil {
		return err
	}
	tm, err := lab.start(ctx, bin, "teammemd", o.debounce, "")
	if err != nil {
		return err
	}
	peers := []peer{tm}
	if o.syncthing != "" {
		st, err := lab.startSyncthing(ctx, o.syncthing, "syncthing", o.debounce)
		if err != nil {
			return err
		}
		peers = append(peers, st)
	}
	res := results{debounce: o.debounce}
	if res.rounds, err = measureRounds(ctx, peers, o, stderr); err != nil {
		return err
	}
	if o.idle > 0 {
		if res.idle, err = measureIdle(ctx, tm.a, o.settle, o.idle); err != nil {
			return fmt.Errorf("idle: %w", err)
		}
	}
	if o.trace {
		if res.trace, err = lab.traceSave(ctx, bin, o); err != nil {
			return errors.Join(res.print(stdout, o), fmt.Errorf("trace: %w", err))
		}
	}
	return res.print(stdout, o)
}

// roundResult is one peer's figures in one round.
type roundResult struct {
	round int
	peer  string
	edits editResult
	burst burstResult
}

// measureRounds warms every peer up, then runs o.rounds rounds; each
// times every peer's edits, then every peer's burst, the order of the
// peers turning each round.
func measureRounds(ctx context.Context, peers []peer, o options, progress io.Writer) ([]roundResult, error) {
	rigs := make([]*rig, len(peers))
	for i, p := range peers {
		r, err := newRig(p)
		if err != nil {
			return nil, err
		}
		defer r.close()
		if err := r.warmUp(ctx); err != nil {
			return nil, fmt.Errorf("warm up: %w", err)
		}
		rigs[i] = r
	}
	var out []roundResult
	for round := 1; round <= o.rounds; round++ {
		res := make([]roundResult, len(rigs))
		order := turn(len(rigs), round)
		for _, i := range order {
			fmt.Fprintf(progress, "daemonbench: round %d: %s edits\n", round, rigs[i].p.name())
			var e editResult
			cpu, err := cpuOver(rigs[i].p, func() (err error) { e, err = rigs[i].edits(ctx, o.edits, o.gap); return err })
			if err != nil {
				return nil, fmt.Errorf("edits: %w", err)
			}
			e.cpu = cpu
			res[i] = roundResult{round: round, peer: rigs[i].p.name(), edits: e}
		}
		for _, i := range order {
			fmt.Fprintf(progress, "daemonbench: round %d: %s burst\n", round, rigs[i].p.name())
			var b burstResult
			cpu, err := cpuOver(rigs[i].p, func() (err error) { b, err = rigs[i].burst(ctx, o.burst, o.size, round); return err })
			if err != nil {
				return nil, fmt.Errorf("burst: %w", err)
			}
			b.cpu = cpu
			res[i].burst = b
		}
		out = append(out, res...)
	}
	return out, nil
}

// turn is the order of n peers in a round: rotated by one each round.
func turn(n, round int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = (i + round - 1) % n
	}
	return out
}
