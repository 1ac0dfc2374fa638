package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/user"
	"runtime"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/teammemd/teammemd/internal/shell"
)

// serviceManager is a platform's service manager, running the sync daemon
// as the user's service: a systemd user unit on Linux, a launchd agent on
// macOS.
type serviceManager interface {
	// plan returns the unit file for s and the commands that install and
	// uninstall it.
	plan(s serviceSpec) (servicePlan, error)
	// state asks the manager whether the service is enabled and running.
	state(ctx context.Context, run commandRunner, s serviceSpec) serviceState
}

// serviceSpec is what a unit is written for.
type serviceSpec struct {
	home   string // the user's home directory
	uid    int    // the user's id (launchd's gui/<uid> domain)
	binary string // absolute path of the teammemd binary
	config string // absolute path of the config file
}

// servicePlan is how a manager installs and removes the daemon's service.
type servicePlan struct {
	name   string // what the service is, for the user: "systemd user unit"
	unit   fileWrite
	reload string // the command that makes the daemon reread its config
	// probe is a command that succeeds only when the manager answers for
	// this user; noManager says what to do when it does not.
	probe     []string
	noManager string
	// install runs after the unit is written; uninstall before it is
	// removed, afterUninstall after.
	install, uninstall, afterUninstall []serviceCmd
}

// serviceCmd is one command of a plan. A command that may fail, such as
// stopping an agent that is not loaded, does not stop the others.
type serviceCmd struct {
	argv    []string
	mayFail bool
}

// serviceState is what the manager says of the service.
type serviceState struct {
	enabled, running bool
	detail           string // the manager's own word, e.g. "failed"
}

// commandRunner runs a command and returns its combined output.
type commandRunner interface {
	run(ctx context.Context, argv []string) (string, error)
}

// execRunner runs commands for real.
type execRunner struct{}

func (execRunner) run(ctx context.Context, argv []string) (string, error) {
	out, err := exec.CommandContext(ctx, argv[0], argv[1:]...).CombinedOutput()
	return string(out), err
}

// serviceEnv is what "teammemd service" works with; the tests give it a
// manager of their choice, a runner that records commands, and a stdin.
type serviceEnv struct {
	manager     serviceManager
	runner      commandRunner
	uid         int
	stdin       io.Reader
	interactive bool                   // stdin is a terminal: ask for what is missing
	readSecret  func() (string, error) // reads the token without echo
}

// realServiceEnv is the environment of this machine.
func realServiceEnv() (serviceEnv, error) {
	env := serviceEnv{runner: execRunner{}, uid: os.Getuid(), stdin: os.Stdin}
	switch runtime.GOOS {
	case "linux":
		env.manager = systemdUser{}
	case "darwin":
		env.manager = launchdAgent{}
	default:
		return env, fmt.Errorf("teammemd service supports Linux (systemd) and macOS (launchd), not %s; run teammemd run under your own service manager", runtime.GOOS)
	}
	fd := int(os.Stdin.Fd())
	env.interactive = term.IsTerminal(fd)
	env.readSecret = func() (string, error) {
		b, err := term.ReadPassword(fd)
		return string(b), err
	}
	return env, nil
}

// newServiceCmd installs, checks or removes the sync daemon as the user's
// service, in the environment d makes.
func newServiceCmd(d deps) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "service",
		Short: "Install, check or remove the sync daemon as your user service",
		Long: `Install, check or remove the sync daemon (teammemd run) as your user
service: a systemd user unit on Linux, a launchd agent on macOS.`,
		Example: `  teammemd service install --server https://teammemd.example.com --token-stdin
  teammemd service status
  teammemd service uninstall`,
	}
	cmd.AddCommand(newServiceInstallCmd(d), newServiceUninstallCmd(d), newServiceStatusCmd(d))
	return cmd
}

// withServiceEnv is the body of a service subcommand: f runs in the
// environment d makes.
func withServiceEnv(d deps, f func(ctx context.Context, env serviceEnv, stdout, stderr io.Writer) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, _ []string) error {
		env, err := d.serviceEnv()
		if err != nil {
			return err
		}
		return f(cmd.Context(), env, cmd.OutOrStdout(), cmd.ErrOrStderr())
	}
}

// runCommands runs cmds in order, printing each; dry only prints them.
func runCommands(ctx context.Context, env serviceEnv, cmds []serviceCmd, dry bool, w io.Writer) error {
	for _, c := range cmds {
		line := shell.Join(c.argv...)
		note := ""
		if c.mayFail {
			note = "    # fails harmlessly when it is not loaded"
		}
		fmt.Fprintf(w, "$ %s%s\n", line, note)
		if dry {
			continue
		}
		out, err := env.runner.run(ctx, c.argv)
		if err != nil && !c.mayFail {
			return fmt.Errorf("%s: %w: %s", line, err, strings.TrimSpace(out))
		}
	}
	return nil
}

// prompter asks the user for what is missing, one line at a time.
type prompter struct {
	in     *bufio.Reader
	out    io.Writer
	secret func() (string, error)
}

func newPrompter(env serviceEnv, out io.Writer) *prompter {
	return &prompter{in: bufio.NewReader(env.stdin), out: out, secret: env.readSecret}
}

// ask prints question and returns the answer, trimmed; def when it is
// empty.
func (p *prompter) ask(question, def string) (string, error) {
	if def != "" {
		question += " [" + def + "]"
	}
	fmt.Fprint(p.out, question+": ")
	line, err := p.in.ReadString('\n')
	if err != nil && (!errors.Is(err, io.EOF) || line == "") {
		return "", fmt.Errorf("read answer: %w", err)
	}
	if ans := strings.TrimSpace(line); ans != "" {
		return ans, nil
	}
	return def, nil
}

// askSecret prints question and reads an answer that is not echoed.
func (p *prompter) askSecret(question string) (string, error) {
	fmt.Fprint(p.out, question+": ")
	s, err := p.secret()
	fmt.Fprintln(p.out)
	if err != nil {
		return "", fmt.Errorf("read token: %w", err)
	}
	return strings.TrimSpace(s), nil
}

// sameFile reports whether path holds exactly data.
func sameFile(path string, data []byte) bool {
	old, err := os.ReadFile(path)
	return err == nil && bytes.Equal(old, data)
}

// userName is the current user's login name, or "$USER" when it is not
// known, for the commands teammemd suggests.
func userName() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return shell.Quote(u.Username)
	}
	return "$USER"
}
