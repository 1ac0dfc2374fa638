package proclab

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/teammemd/teammemd/sync/daemon"
)

// DaemonSpec names one daemon to start.
type DaemonSpec struct {
	// Name names its directory in the lab, which holds its team
	// directory, state directory and control socket, and its log
	// (<name>.log).
	Name string
	// Server is the server's base URL; Token the token the daemon sends.
	Server, Token string
	// Repo is the slug of the one repo the daemon syncs.
	Repo string
	// Claude lays the daemon out as Claude Code does: a Claude Code config
	// directory of its own, <name>/claude, whose one project's team
	// directory is the daemon's, and a teammemd config directory of its
	// own, <name>/config/teammemd, where a personal key can be stored
	// (ConfigDir) before the daemon starts (NewDaemon, then Restart).
	Claude bool
	// Origin, when set, makes the daemon a teammate's machine as "teammemd
	// setup claude" leaves one: <name> is the home directory (HOME) of
	// every command run as the daemon (Run), with a git checkout,
	// <name>/app, whose origin remote is Origin. The daemon runs from the
	// config setup writes there (Config), on the team directory of the
	// checkout's Claude Code project; run "teammemd setup claude" (Run)
	// before Restart.
	Origin string
}

// Daemon is one "teammemd run" of a lab, on one repo, and its directories.
type Daemon struct {
	DaemonSpec
	// Dir is the team directory, StateDir the state directory (state and
	// conflict copies) and Socket the control socket.
	Dir, StateDir, Socket string
	// With Claude set: Memory is the project's memory directory (Dir is
	// its team/), ClaudeHome Claude Code's config directory and ConfigDir
	// teammemd's.
	Memory, ClaudeHome, ConfigDir string
	// With Origin set: Home is the home directory, Checkout the git
	// checkout and Config the config file the daemon runs from.
	Home, Checkout, Config string

	lab  *Lab
	mu   sync.Mutex
	proc *Process
}

// StartDaemon creates the daemon's directories, <lab>/<name>/team and
// <lab>/<name>/state, and starts "teammemd run" on them. It does not wait
// for the daemon to be ready.
func (l *Lab) StartDaemon(ctx context.Context, s DaemonSpec) (*Daemon, error) {
	d, err := l.NewDaemon(ctx, s)
	if err != nil {
		return nil, err
	}
	return d, d.Restart()
}

// NewDaemon creates the daemon's directories, and with Origin its git
// checkout, without starting it; Restart starts it.
func (l *Lab) NewDaemon(ctx context.Context, s DaemonSpec) (*Daemon, error) {
	home := filepath.Join(l.Dir, s.Name)
	d := &Daemon{
		DaemonSpec: s, lab: l,
		Dir:      filepath.Join(home, "team"),
		StateDir: filepath.Join(home, "state"),
		Socket:   daemon.SocketPath(home),
	}
	switch {
	case s.Origin != "":
		if err := d.layOutHome(ctx, home); err != nil {
			return nil, err
		}
	case s.Claude:
		d.ClaudeHome, d.ConfigDir = filepath.Join(home, "claude"), filepath.Join(home, "config", "teammemd")
		d.Memory = filepath.Join(d.ClaudeHome, "projects", "-proof", "memory")
		d.Dir = filepath.Join(d.Memory, "team")
	}
	if err := os.MkdirAll(d.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("create %s: %w", d.Dir, err)
	}
	return d, nil
}

// Restart starts the daemon again on the same directories, after a Kill or
// Stop of its process. It does not wait for the daemon to be ready.
func (d *Daemon) Restart() error {
	if p := d.Proc(); p != nil && !p.Exited() {
		return fmt.Errorf("daemon %s is still running (pid %d)", d.Name, p.Pid())
	}
	var p *Process
	var err error
	if d.Origin != "" {
		p, err = d.lab.Start(d.Name, d.homeEnv(), "run", "--config", d.Config, "--socket", d.Socket)
	} else {
		env := []string{"TEAMMEMD_TOKEN=" + d.Token, "XDG_RUNTIME_DIR=" + filepath.Dir(d.Socket), "XDG_STATE_HOME=" + d.StateDir}
		if d.Claude {
			env = append(env, "CLAUDE_CONFIG_DIR="+d.ClaudeHome, "XDG_CONFIG_HOME="+filepath.Dir(d.ConfigDir))
		}
		p, err = d.lab.Start(d.Name, env, "run", "--dir", d.Dir, "--repo", d.Repo, "--server", d.Server,
			"--state-dir", d.StateDir, "--socket", d.Socket)
	}
	if err != nil {
		return err
	}
	d.mu.Lock()
	d.proc = p
	d.mu.Unlock()
	return nil
}

// Proc is the daemon's current process.
func (d *Daemon) Proc() *Process {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.proc
}

// Kill kills the daemon's process with SIGKILL and waits until it is gone.
func (d *Daemon) Kill() error { return d.Proc().Kill() }

// Status asks the running daemon for the status of its one repo's team
// lane.
func (d *Daemon) Status(ctx context.Context) (daemon.RepoStatus, error) {
	return d.laneStatus(ctx, daemon.LaneTeam)
}

// PersonalStatus asks the running daemon for the status of its personal
// lane.
func (d *Daemon) PersonalStatus(ctx context.Context) (daemon.RepoStatus, error) {
	return d.laneStatus(ctx, daemon.LanePersonal)
}

func (d *Daemon) laneStatus(ctx context.Context, lane string) (daemon.RepoStatus, error) {
	st, err := daemon.FetchStatus(ctx, d.Socket)
	if err != nil {
		return daemon.RepoStatus{}, err
	}
	var found []daemon.RepoStatus
	for _, r := range st.Repos {
		if r.Lane == lane {
			found = append(found, r)
		}
	}
	if len(found) != 1 {
		return daemon.RepoStatus{}, fmt.Errorf("daemon %s runs %d repos in the %s lane, want 1", d.Name, len(found), lane)
	}
	return found[0], nil
}

// WaitPulled waits until the daemon answers on its control socket and has
// finished its first pull: from then on it sees every change to its team
// directory.
func (d *Daemon) WaitPulled(ctx context.Context, limit time.Duration) error {
	return d.WaitStatus(ctx, limit, "finish its first pull", func(s daemon.RepoStatus) bool { return s.LastPull != nil })
}

// WaitSettled waits until the daemon answers on its control socket and
// has finished its first push.
func (d *Daemon) WaitSettled(ctx context.Context, limit time.Duration) error {
	return d.WaitStatus(ctx, limit, "finish its first sync", func(s daemon.RepoStatus) bool { return s.LastPush != nil })
}

// WaitStatus polls the daemon's status until done holds, the process exits
// or limit passes; what says what it waits for, in errors.
func (d *Daemon) WaitStatus(ctx context.Context, limit time.Duration, what string, done func(daemon.RepoStatus) bool) error {
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
		if err := Pause(ctx, 20*time.Millisecond); err != nil {
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
