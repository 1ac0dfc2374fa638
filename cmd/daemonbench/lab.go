package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/teammemd/teammemd/internal/proclab"
)

// benchRepo is the repo slug both daemons sync.
const benchRepo = "bench/app"

// settleLimit bounds each daemon's first sync.
const settleLimit = 30 * time.Second

// lab owns the temporary directory and every process started in it.
type lab struct {
	dir    string
	keep   bool
	stderr io.Writer
	procs  *proclab.Lab
}

// pair is the two daemons.
type pair struct {
	a, b *proclab.Daemon
}

func newLab(keep bool, stderr io.Writer) (*lab, error) {
	dir, err := os.MkdirTemp("", "teammemd-bench-")
	if err != nil {
		return nil, fmt.Errorf("create temporary directory: %w", err)
	}
	return &lab{dir: dir, keep: keep, stderr: stderr}, nil
}

// close stops every process, newest first, and removes the directory.
func (l *lab) close() {
	if l.procs != nil {
		if err := l.procs.Close(); err != nil {
			fmt.Fprintln(l.stderr, "daemonbench: stop:", err)
		}
	}
	if l.keep {
		fmt.Fprintln(l.stderr, "daemonbench: kept", l.dir)
		return
	}
	if err := os.RemoveAll(l.dir); err != nil {
		fmt.Fprintln(l.stderr, "daemonbench: remove temporary directory:", err)
	}
}

// start builds teammemd and starts the server and both daemons, returning
// once both daemons finished their first sync.
func (l *lab) start(ctx context.Context, tags string) (pair, error) {
	bin := filepath.Join(l.dir, "teammemd")
	if err := proclab.Build(ctx, bin, tags); err != nil {
		return pair{}, err
	}
	procs, err := proclab.New(l.dir, bin)
	if err != nil {
		return pair{}, err
	}
	l.procs = procs
	srv, err := procs.StartServer(ctx, "server")
	if err != nil {
		return pair{}, err
	}
	token, err := srv.CreateToken(ctx, "bench", "**")
	if err != nil {
		return pair{}, fmt.Errorf("create token: %w", err)
	}
	var p pair
	if p.a, err = procs.StartDaemon(proclab.DaemonSpec{Name: "a", Server: srv.URL, Token: token, Repo: benchRepo}); err != nil {
		return pair{}, err
	}
	if p.b, err = procs.StartDaemon(proclab.DaemonSpec{Name: "b", Server: srv.URL, Token: token, Repo: benchRepo}); err != nil {
		return pair{}, err
	}
	for _, d := range []*proclab.Daemon{p.a, p.b} {
		if err := d.WaitSettled(ctx, settleLimit); err != nil {
			return pair{}, fmt.Errorf("%w (log: %s)", err, d.Proc().LogTail())
		}
	}
	return p, nil
}

// pause waits d or until ctx is done.
func pause(ctx context.Context, d time.Duration) error { return proclab.Pause(ctx, d) }
