// Command serverbench measures how many durable PUTs a second "teammemd
// serve" takes from concurrent clients in another process, against the
// floor of the same machine: a plain net/http server that reads each PUT's
// body and answers 200 with a small JSON body, so its rate is what HTTP
// over loopback allows. It builds teammemd from this tree, and in each
// round starts, one after the other, the floor, "teammemd serve" on SQLite
// and, with -postgres, "teammemd serve" on a schema of its own in that
// PostgreSQL database, each on a free loopback port with its default
// config (secret scan on, every write durable before its 200) but for the
// per-address rate limit, which the clients, all on 127.0.0.1, would
// otherwise share. Each client writes 4 KB single-entry PUTs of note-like
// text to a repo of its own, each with If-Match set to the checksum the
// previous PUT returned, as the daemon sends them. It reports PUTs a
// second, p50 and p99 latency and the ratio to the floor of the same
// round. With -old it measures another teammemd binary, such as one built
// from an older commit, in the same rounds. It always stops its processes and removes its temporary files,
// also on error or Ctrl-C.
//
//	go run ./cmd/serverbench [-rounds 3] [-puts 4000] [-clients 16] [-old /path/to/old/teammemd] [-postgres postgres://user:password@127.0.0.1:5432/db]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/teammemd/teammemd/internal/proclab"
)

// options are the command's flags.
type options struct {
	rounds, puts, clients, size int
	postgres, bin, old, tags    string
	timeout                     time.Duration
	keep, storeFloors           bool
}

func main() {
	if spec := os.Getenv(floorEnv); spec != "" {
		os.Exit(floorMain(spec, os.Stdin, os.Stdout, os.Stderr))
	}
	proclab.Main("serverbench", run)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	b, err := newBench(ctx, o, stderr)
	if err != nil {
		return err
	}
	rows, err := b.rounds(ctx)
	if cerr := b.close(); cerr != nil {
		fmt.Fprintln(stderr, "serverbench: stop:", cerr)
	}
	if err != nil {
		return err
	}
	return printResults(stdout, o, rows)
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	fs := flag.NewFlagSet("serverbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	fs.IntVar(&o.rounds, "rounds", 3, "rounds, each measuring every server once")
	fs.IntVar(&o.puts, "puts", 4000, "PUTs each server takes in a round, besides two warm-up PUTs a client")
	fs.IntVar(&o.clients, "clients", 16, "concurrent clients, each writing to a repo of its own")
	fs.IntVar(&o.size, "size", 4096, "bytes of each PUT's one value")
	fs.StringVar(&o.postgres, "postgres", "", "also measure on this PostgreSQL database, a postgres://user:password@127.0.0.1:port/db `URL`")
	fs.StringVar(&o.bin, "bin", "", "a teammemd `binary` to measure instead of one built from this tree")
	fs.StringVar(&o.old, "old", "", "also measure this teammemd `binary`, e.g. built from an older commit, in every round")
	fs.StringVar(&o.tags, "tags", "", "build tags passed to go build for the binary of this tree")
	fs.DurationVar(&o.timeout, "timeout", 20*time.Minute, "bound on the whole run")
	fs.BoolVar(&o.storeFloors, "storefloors", false, "also measure the floor with one durable write a PUT on SQLite and, with -postgres, on PostgreSQL")
	fs.BoolVar(&o.keep, "keep", false, "keep the temporary directory (logs, databases) for inspection")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if o.rounds < 1 || o.rounds > 20 || o.clients < 1 || o.clients > 256 || o.puts < o.clients || o.puts > 1_000_000 ||
		o.size < 64 || o.size > 100_000 {
		return o, errors.New("-rounds must be 1 to 20, -clients 1 to 256, -puts -clients to 1000000 and -size 64 to 100000")
	}
	return o, nil
}
