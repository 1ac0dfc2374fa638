package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/teammemd/teammemd/sync/daemon"
)

// benchRepo is the repo slug both daemons sync.
const benchRepo = "bench/app"

// lab owns the temporary directory and every process started in it.
type lab struct {
	dir    string
	bin    string
	keep   bool
	stderr io.Writer
	procs  []*proc
}

// node is one running daemon.
type node struct {
	proc   *proc
	dir    string // team directory
	socket string // control socket
}

// pair is the server and the two daemons.
type pair struct {
	a, b node
}

func newLab(keep bool, stderr io.Writer) (*lab, error) {
	dir, err := os.MkdirTemp("", "teammemd-bench-")
	if err != nil {
		return nil, fmt.Errorf("create temporary directory: %w", err)
	}
	return &lab{dir: dir, bin: filepath.Join(dir, "teammemd"), keep: keep, stderr: stderr}, nil
}

// close stops every process, newest first, and removes the directory.
func (l *lab) close() {
	for i := len(l.procs) - 1; i >= 0; i-- {
		l.procs[i].stop()
	}
	if l.keep {
		fmt.Fprintln(l.stderr, "benchcmd: kept", l.dir)
		return
	}
	if err := os.RemoveAll(l.dir); err != nil {
		fmt.Fprintln(l.stderr, "benchcmd: remove temporary directory:", err)
	}
}

// start builds teammemd and starts the server and both daemons, returning
// once both daemons finished their first sync.
func (l *lab) start(ctx context.Context, tags string) (pair, error) {
	if err := l.build(ctx, tags); err != nil {
		return pair{}, err
	}
	env, err := l.baseEnv()
	if err != nil {
		return pair{}, err
	}
	url, token, err := l.server(ctx, env)
	if err != nil {
		return pair{}, err
	}
	var p pair
	if p.a, err = l.daemon(ctx, env, "a", url, token); err != nil {
		return pair{}, err
	}
	if p.b, err = l.daemon(ctx, env, "b", url, token); err != nil {
		return pair{}, err
	}
	for _, n := range []node{p.a, p.b} {
		if err := waitSettled(ctx, n); err != nil {
			return pair{}, fmt.Errorf("%w (log: %s)", err, n.proc.logTail())
		}
	}
	return p, nil
}

// build compiles teammemd from the module holding this command.
func (l *lab) build(ctx context.Context, tags string) error {
	root, err := goOutput(ctx, "", "env", "GOMOD")
	if err != nil || root == "" || root == os.DevNull {
		return fmt.Errorf("find the teammemd module (run from inside it): %w", err)
	}
	args := []string{"build", "-o", l.bin}
	if tags != "" {
		args = append(args, "-tags", tags)
	}
	args = append(args, "./cmd/teammemd")
	if _, err := goOutput(ctx, filepath.Dir(root), args...); err != nil {
		return fmt.Errorf("build teammemd: %w", err)
	}
	return nil
}

// goOutput runs the go command in dir and returns its trimmed output.
func goOutput(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go %s: %w: %s", args[0], err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(string(out)), nil
}

// baseEnv keeps the user's own config, state and Claude projects out.
func (l *lab) baseEnv() ([]string, error) {
	cfg := filepath.Join(l.dir, "config.toml")
	if err := os.WriteFile(cfg, nil, 0o600); err != nil {
		return nil, fmt.Errorf("write empty config: %w", err)
	}
	env := []string{"TEAMMEMD_CONFIG=" + cfg, "CLAUDE_CONFIG_DIR=" + filepath.Join(l.dir, "claude")}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "TEAMMEMD_") && !strings.HasPrefix(kv, "XDG_") && !strings.HasPrefix(kv, "NOTIFY_SOCKET=") {
			env = append(env, kv)
		}
	}
	return env, nil
}

// server creates a token and starts teammemd serve on a free loopback port.
func (l *lab) server(ctx context.Context, env []string) (url, token string, err error) {
	data := filepath.Join(l.dir, "server")
	cmd := exec.CommandContext(ctx, l.bin, "token", "create", "--data", data, "--subject", "bench", "--repos", "**")
	cmd.Env = env
	out, err := cmd.Output()
	if err != nil {
		return "", "", fmt.Errorf("create token: %w", err)
	}
	token = strings.TrimSpace(string(out))
	addr, err := freeLoopbackAddr()
	if err != nil {
		return "", "", err
	}
	p, err := l.spawn("server", env, "serve", "--listen", addr, "--data", data)
	if err != nil {
		return "", "", err
	}
	if err := waitDial(ctx, addr, 15*time.Second); err != nil {
		return "", "", fmt.Errorf("server did not listen: %w (log: %s)", err, p.logTail())
	}
	return "http://" + addr, token, nil
}

// daemon starts teammemd run on its own team, state and runtime directories.
func (l *lab) daemon(ctx context.Context, env []string, name, url, token string) (node, error) {
	n := node{dir: filepath.Join(l.dir, "team-"+name)}
	runtime := filepath.Join(l.dir, "run-"+name)
	n.socket = daemon.SocketPath(runtime)
	for _, d := range []string{n.dir, runtime} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return node{}, fmt.Errorf("create %s: %w", d, err)
		}
	}
	env = append(env, "TEAMMEMD_TOKEN="+token, "XDG_RUNTIME_DIR="+runtime,
		"XDG_STATE_HOME="+filepath.Join(l.dir, "state-"+name))
	p, err := l.spawn("daemon-"+name, env, "run", "--dir", n.dir, "--repo", benchRepo, "--server", url,
		"--socket", n.socket, "--state-dir", filepath.Join(l.dir, "state-"+name))
	if err != nil {
		return node{}, err
	}
	n.proc = p
	return n, ctx.Err()
}

// spawn starts the built teammemd with args, its output in <name>.log.
func (l *lab) spawn(name string, env []string, args ...string) (*proc, error) {
	p, err := startProc(filepath.Join(l.dir, name+".log"), l.bin, env, args...)
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	l.procs = append(l.procs, p)
	return p, nil
}

// freeLoopbackAddr finds a free port on 127.0.0.1.
func freeLoopbackAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("find a free port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// waitDial polls addr until it accepts a connection.
func waitDial(ctx context.Context, addr string, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			return c.Close()
		}
		if time.Now().After(deadline) {
			return err
		}
		if err := pause(ctx, 20*time.Millisecond); err != nil {
			return err
		}
	}
}

// waitSettled waits until the daemon answers on its control socket and has
// finished its first push.
func waitSettled(ctx context.Context, n node) error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		st, err := daemon.FetchStatus(ctx, n.socket)
		if err == nil && len(st.Repos) == 1 && st.Repos[0].LastPush != nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("daemon in %s did not finish its first sync within 30s", n.dir)
		}
		if err := pause(ctx, 20*time.Millisecond); err != nil {
			return err
		}
	}
}

// pause waits d or until ctx is done.
func pause(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
