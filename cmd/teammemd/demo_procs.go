package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/teammemd/teammemd/internal/shell"
)

// demoEnv is the environment variable under which a test binary acts as
// teammemd, so the demo can start its own executable as child processes.
const demoEnv = "TEAMMEMD_DEMO_CHILD"

// procs starts teammemd child processes, echoes each command line the way a
// user would type it, and stops them all on close.
type procs struct {
	exe    string
	out    io.Writer
	env    []string
	logDir string
	live   []*exec.Cmd
}

func newProcs(out io.Writer, logDir string) (*procs, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find the teammemd executable: %w", err)
	}
	return &procs{exe: exe, out: out, logDir: logDir, env: append(os.Environ(), demoEnv+"=1")}, nil
}

// output runs teammemd with args to completion and returns its stdout. It
// echoes the command as the assignment of its output to the shell variable
// assign, unless assign is empty.
func (p *procs) output(ctx context.Context, assign string, args ...string) (string, error) {
	p.echo(nil, assign, args)
	cmd := exec.CommandContext(ctx, p.exe, args...)
	cmd.Env = p.env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("teammemd %s: %w: %s", args[0], err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(string(out)), nil
}

// start launches a long-running teammemd with args, logging to name.log.
func (p *procs) start(ctx context.Context, name string, env []string, args ...string) error {
	p.echo(env, "", args)
	logPath := filepath.Join(p.logDir, name+".log")
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("open %s log: %w", name, err)
	}
	cmd := exec.CommandContext(ctx, p.exe, args...)
	cmd.Env = append(append([]string{}, p.env...), env...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 10 * time.Second
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return fmt.Errorf("start teammemd %s: %w", args[0], err)
	}
	logFile.Close() // the child holds its own descriptor
	p.live = append(p.live, cmd)
	return nil
}

// stop ends every child: SIGTERM, then a kill after the wait delay.
func (p *procs) stop() error {
	var errs []error
	for i := len(p.live) - 1; i >= 0; i-- {
		cmd := p.live[i]
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
			errs = append(errs, err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				errs = append(errs, fmt.Errorf("teammemd %s: %w", cmd.Args[1], err))
			}
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			errs = append(errs, fmt.Errorf("teammemd %s did not stop within 10s; killed", cmd.Args[1]))
			<-done
		}
	}
	p.live = nil
	return errors.Join(errs...)
}

// echo prints the command line a user would type for args, with env set
// and, when assign is set, its output captured in that shell variable.
// The token is shown as $TOKEN, the variable the token step assigns.
func (p *procs) echo(env []string, assign string, args []string) {
	line := shell.Join(append([]string{"teammemd"}, args...)...)
	if assign != "" {
		line = assign + "=$(" + line + ")"
	}
	words := make([]string, 0, len(env)+1)
	for _, e := range env {
		k, v, _ := strings.Cut(e, "=")
		if k == "TEAMMEMD_TOKEN" {
			v = "$TOKEN"
		} else {
			v = shell.Quote(v)
		}
		words = append(words, k+"="+v)
	}
	fmt.Fprintln(p.out, "  $ "+strings.Join(append(words, line), " "))
}

// freeLoopbackAddr returns a loopback address with a port that was free a
// moment ago.
func freeLoopbackAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("find a free loopback port: %w", err)
	}
	addr := ln.Addr().String()
	return addr, ln.Close()
}

// waitFor polls cond every 25 ms until it holds, ctx ends or limit passes.
func waitFor(ctx context.Context, limit time.Duration, what string, cond func() bool) (time.Duration, error) {
	start := time.Now()
	tick := time.NewTicker(25 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Since(start) > limit {
			return 0, fmt.Errorf("%s: nothing after %s", what, limit)
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-tick.C:
		}
	}
	return time.Since(start), nil
}

// serverLive reports whether the server at base answers /livez.
func serverLive(ctx context.Context, base string) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/livez", nil)
	if err != nil {
		return false
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}
