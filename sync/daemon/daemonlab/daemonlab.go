// Package daemonlab runs "teammemd run" daemons as real processes in a
// proclab.Lab, for tests and benchmarks that watch what users run: each
// daemon has its own team, state and runtime directories in the lab, talks
// to a server URL with its own token, and can be stopped, killed (SIGKILL)
// and restarted on the same directories. It reads the daemon's status over
// its control socket and lists its conflict copies.
package daemonlab

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/teammemd/teammemd/server/servertest/proclab"
	"github.com/teammemd/teammemd/sync/daemon"
)

// Spec names one daemon to start.
type Spec struct {
	// Name names its directories (team-<name>, state-<name>, run-<name>)
	// and its log (daemon-<name>.log) in the lab.
	Name string
	// Server is the server's base URL; Token the token the daemon sends.
	Server, Token string
	// Repo is the slug of the one repo the daemon syncs.
	Repo string
}

// Daemon is one daemon of a lab and its directories.
type Daemon struct {
	Spec
	// Dir is the team directory, StateDir the state directory (state and
	// conflict copies) and Socket the control socket.
	Dir, StateDir, Socket string

	lab  *proclab.Lab
	mu   sync.Mutex
	proc *proclab.Process
}

// Start creates the daemon's directories and starts "teammemd run" on them.
func Start(l *proclab.Lab, s Spec) (*Daemon, error) {
	runtime := filepath.Join(l.Dir, "run-"+s.Name)
	d := &Daemon{
		Spec: s, lab: l,
		Dir:      filepath.Join(l.Dir, "team-"+s.Name),
		StateDir: filepath.Join(l.Dir, "state-"+s.Name),
		Socket:   daemon.SocketPath(runtime),
	}
	for _, dir := range []string{d.Dir, runtime} {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("create %s: %w", dir, err)
		}
	}
	return d, d.Restart()
}

// Restart starts the daemon again on the same directories, after a Kill or
// Stop of its process. It does not wait for the daemon to be ready.
func (d *Daemon) Restart() error {
	if p := d.Proc(); p != nil && !p.Exited() {
		return fmt.Errorf("daemon %s is still running (pid %d)", d.Name, p.Pid())
	}
	env := d.lab.Env("TEAMMEMD_TOKEN="+d.Token, "XDG_RUNTIME_DIR="+filepath.Dir(d.Socket), "XDG_STATE_HOME="+d.StateDir)
	p, err := d.lab.Start("daemon-"+d.Name, env, "run", "--dir", d.Dir, "--repo", d.Repo, "--server", d.Server,
		"--socket", d.Socket, "--state-dir", d.StateDir)
	if err != nil {
		return err
	}
	d.mu.Lock()
	d.proc = p
	d.mu.Unlock()
	return nil
}

// Proc is the daemon's current process.
func (d *Daemon) Proc() *proclab.Process {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.proc
}

// Kill kills the daemon's process with SIGKILL and waits until it is gone.
func (d *Daemon) Kill() error { return d.Proc().Kill() }

// Status asks the running daemon for the status of its one repo.
func (d *Daemon) Status(ctx context.Context) (daemon.RepoStatus, error) {
	st, err := daemon.FetchStatus(ctx, d.Socket)
	if err != nil {
		return daemon.RepoStatus{}, err
	}
	if len(st.Repos) != 1 {
		return daemon.RepoStatus{}, fmt.Errorf("daemon %s runs %d repos, want 1", d.Name, len(st.Repos))
	}
	return st.Repos[0], nil
}

// WaitPulled waits until the daemon answers on its control socket and has
// finished its first pull: from then on it sees every change to its team
// directory.
func (d *Daemon) WaitPulled(ctx context.Context, limit time.Duration) error {
	return d.waitStatus(ctx, limit, "finish its first pull", func(s daemon.RepoStatus) bool { return s.LastPull != nil })
}

// WaitSettled waits until the daemon answers on its control socket and
// has finished its first push.
func (d *Daemon) WaitSettled(ctx context.Context, limit time.Duration) error {
	return d.waitStatus(ctx, limit, "finish its first sync", func(s daemon.RepoStatus) bool { return s.LastPush != nil })
}

// waitStatus polls the status until done holds, the process exits or
// limit passes.
func (d *Daemon) waitStatus(ctx context.Context, limit time.Duration, what string, done func(daemon.RepoStatus) bool) error {
	deadline := time.Now().Add(limit)
	p := d.Proc()
	for {
		st, err := d.Status(ctx)
		if err == nil && done(st) {
			return nil
		}
		switch {
		case p.Exited():
			return fmt.Errorf("daemon in %s exited before it could %s", d.Dir, what)
		case time.Now().After(deadline):
			return fmt.Errorf("daemon in %s did not %s within %s", d.Dir, what, limit)
		}
		if err := proclab.Pause(ctx, 20*time.Millisecond); err != nil {
			return err
		}
	}
}

// ConflictCopies lists the conflict copies in the daemon's state
// directory, every repo's, as paths.
func (d *Daemon) ConflictCopies() ([]string, error) {
	var out []string
	root := filepath.Join(d.StateDir, "conflicts")
	err := filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.Type().IsRegular() {
			out = append(out, p)
		}
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list conflict copies of %s: %w", d.Name, err)
	}
	return out, nil
}
