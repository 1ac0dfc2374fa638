// Package service installs, checks and removes the sync daemon ("teammemd
// run") as the user's service: a systemd user unit on Linux, a launchd
// agent on macOS. Install writes what the daemon needs (the config, the
// token file and the unit) and has the manager start it; Uninstall removes
// the unit and keeps the rest; Status says what the manager says of it.
package service

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"golang.org/x/term"

	"github.com/teammemd/teammemd/internal/shell"
	memsync "github.com/teammemd/teammemd/sync"
	"github.com/teammemd/teammemd/sync/daemon"
	"github.com/teammemd/teammemd/sync/login"
)

// Manager is a platform's service manager, running the sync daemon as the
// user's service.
type Manager interface {
	// Plan returns the unit file for s and the commands that install and
	// uninstall it.
	Plan(s Spec) (Plan, error)
	// State asks the manager whether the service is enabled and running.
	State(ctx context.Context, run Runner, s Spec) State
}

// Spec is what a unit is written for.
type Spec struct {
	Home       string // the user's home directory
	ConfigHome string // $XDG_CONFIG_HOME, else ~/.config: systemd's user units are below it
	UID        int    // the user's id (launchd's gui/<uid> domain)
	Binary     string // absolute path of the teammemd binary
	Config     string // absolute path of the config file
}

// Plan is how a manager installs and removes the daemon's service.
type Plan struct {
	Name   string // what the service is, for the user: "systemd user unit"
	Unit   FileWrite
	Reload string // the command that makes the daemon reread its config
	// Probe is a command that succeeds only when the manager answers for
	// this user; NoManager says what to do when it does not.
	Probe     []string
	NoManager string
	// Install runs after the unit is written; Uninstall before it is
	// removed, AfterUninstall after.
	Install, Uninstall, AfterUninstall []Cmd
}

// Cmd is one command of a plan. A command that may fail, such as stopping
// an agent that is not loaded, does not stop the others.
type Cmd struct {
	Argv    []string
	MayFail bool
}

// State is what the manager says of the service.
type State struct {
	Enabled, Running bool
	Detail           string // the manager's own word, e.g. "failed"
}

// Runner runs a command and returns its combined output.
type Runner interface {
	Run(ctx context.Context, argv []string) (string, error)
}

// ExecRunner runs commands for real.
type ExecRunner struct{}

// Run runs argv and returns its combined output.
func (ExecRunner) Run(ctx context.Context, argv []string) (string, error) {
	out, err := exec.CommandContext(ctx, argv[0], argv[1:]...).CombinedOutput()
	return string(out), err
}

// Machine is the part of the environment that is this machine's: its
// manager, the commands it runs, the user and the terminal. Tests give a
// manager of their choice, a runner that records commands, and a stdin.
type Machine struct {
	Manager     Manager
	Runner      Runner
	UID         int
	Stdin       io.Reader
	Interactive bool                   // stdin is a terminal: ask for what is missing
	ReadSecret  func() (string, error) // reads the token without echo
}

// ThisMachine is the machine this runs on: systemd on Linux, launchd on
// macOS.
func ThisMachine() (Machine, error) {
	m := Machine{Runner: ExecRunner{}, UID: os.Getuid(), Stdin: os.Stdin}
	switch runtime.GOOS {
	case "linux":
		m.Manager = Systemd{}
	case "darwin":
		m.Manager = Launchd{}
	default:
		return m, fmt.Errorf("teammemd service supports Linux (systemd) and macOS (launchd), not %s; run teammemd run under your own service manager", runtime.GOOS)
	}
	fd := int(os.Stdin.Fd())
	m.Interactive = term.IsTerminal(fd)
	m.ReadSecret = func() (string, error) {
		b, err := term.ReadPassword(fd)
		return string(b), err
	}
	return m, nil
}

// Dirs are teammemd's directories.
type Dirs struct {
	ConfigHome string // $XDG_CONFIG_HOME, else ~/.config
	Config     string // teammemd's config directory: config.toml, the token file
	State      string // the sync engine's state
}

// Config is what install reads of the config file.
type Config struct {
	Client memsync.ClientConfig `toml:"client"`
	Daemon daemon.Config        `toml:"daemon"`
}

// Env is what the service commands work with.
type Env struct {
	Machine
	Dirs Dirs
	// ConfigFile is the config file used when none is given:
	// $TEAMMEMD_CONFIG, else config.toml in Dirs.Config.
	ConfigFile string
	// Decode decodes and validates the config file at path, read as data,
	// as the daemon does.
	Decode func(path string, data []byte) (Config, error)
	// Logins are teammemd login's: a login to the server is the daemon's
	// credential when no token file is named.
	Logins login.Store
}

// InputError marks bad input: a flag, an answer or the config file the
// user has to fix.
type InputError struct{ Err error }

func (e InputError) Error() string { return e.Err.Error() }
func (e InputError) Unwrap() error { return e.Err }

// ConfigError marks a config file that cannot be read or used: the user
// has to fix the file, or name another.
type ConfigError struct{ Err error }

func (e ConfigError) Error() string { return e.Err.Error() }
func (e ConfigError) Unwrap() error { return e.Err }

// runCommands runs cmds in order, printing each; dry only prints them.
func runCommands(ctx context.Context, env Env, cmds []Cmd, dry bool, w io.Writer) error {
	for _, c := range cmds {
		line := shell.Join(c.Argv...)
		note := ""
		if c.MayFail {
			note = "    # fails harmlessly when it is not loaded"
		}
		fmt.Fprintf(w, "$ %s%s\n", line, note)
		if dry {
			continue
		}
		out, err := env.Runner.Run(ctx, c.Argv)
		if err != nil && !c.MayFail {
			return fmt.Errorf("%s: %w: %s", line, err, strings.TrimSpace(out))
		}
	}
	return nil
}

// here is the manager's plan for this user, for finding and removing the
// unit: the binary and config do not matter there.
func here(env Env) (Plan, Spec, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return Plan{}, Spec{}, fmt.Errorf("find the home directory: %w", err)
	}
	s := Spec{Home: home, ConfigHome: env.Dirs.ConfigHome, UID: env.UID, Binary: "teammemd", Config: filepath.Join(env.Dirs.Config, "config.toml")}
	p, err := env.Manager.Plan(s)
	return p, s, err
}
