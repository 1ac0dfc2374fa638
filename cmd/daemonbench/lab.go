package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/teammemd/teammemd/internal/proclab"
	"github.com/teammemd/teammemd/internal/savetrace"
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
	closer []func() error // stop what was started, in reverse order
}

// pair is the two daemons and the server.
type pair struct {
	a, b     *proclab.Daemon
	server   *proclab.Server
	debounce time.Duration
}

func (p pair) name() string                { return "teammemd" }
func (p pair) dirs() (string, string)      { return p.a.Dir, p.b.Dir }
func (p pair) delay() time.Duration        { return p.debounce }
func (p pair) check(context.Context) error { return p.alive() }
func (p pair) pids() []int {
	return []int{p.a.Proc().Pid(), p.b.Proc().Pid(), p.server.Proc().Pid()}
}

// holds: the daemon's debounce starts again at each event, so no save
// finds its timer ticking.
func (p pair) holds(_ string, starts []time.Time) ([]hold, error) {
	return make([]hold, len(starts)), nil
}

// alive reports a process of the pair that exited.
func (p pair) alive() error {
	for _, pr := range []*proclab.Process{p.server.Proc(), p.a.Proc(), p.b.Proc()} {
		if pr.Exited() {
			return fmt.Errorf("a teammemd process exited: %s", pr.LogTail())
		}
	}
	return nil
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
	for i := len(l.closer) - 1; i >= 0; i-- {
		if err := l.closer[i](); err != nil {
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

// build builds teammemd into the lab directory and returns its path.
func (l *lab) build(ctx context.Context, tags string) (string, error) {
	bin := filepath.Join(l.dir, "bin", "teammemd")
	return bin, proclab.Build(ctx, bin, tags)
}

// start starts the server and both daemons of bin in sub, a directory of
// the lab, at debounce, returning once both daemons finished their first
// sync. A trace file, when not "", gets every process's save trace.
func (l *lab) start(ctx context.Context, bin, sub string, debounce time.Duration, trace string) (pair, error) {
	dir := filepath.Join(l.dir, sub)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return pair{}, fmt.Errorf("create %s: %w", dir, err)
	}
	var env []string
	if trace != "" {
		env = append(env, savetrace.EnvVar+"="+trace)
	}
	procs, err := proclab.New(dir, bin, env...)
	if err != nil {
		return pair{}, err
	}
	l.closer = append(l.closer, procs.Close)
	if err := procs.SetConfig(fmt.Sprintf("[daemon]\ndebounce = %q\n", debounce)); err != nil {
		return pair{}, err
	}
	p := pair{debounce: debounce}
	if p.server, err = procs.StartServer(ctx, "server"); err != nil {
		return pair{}, err
	}
	token, err := p.server.CreateToken(ctx, "bench", "**")
	if err != nil {
		return pair{}, fmt.Errorf("create token: %w", err)
	}
	if p.a, err = procs.StartDaemon(ctx, proclab.DaemonSpec{Name: "a", Server: p.server.URL, Token: token, Repo: benchRepo}); err != nil {
		return pair{}, err
	}
	if p.b, err = procs.StartDaemon(ctx, proclab.DaemonSpec{Name: "b", Server: p.server.URL, Token: token, Repo: benchRepo}); err != nil {
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
