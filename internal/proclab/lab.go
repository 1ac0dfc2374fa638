// Package proclab runs the teammemd binary as real processes, for the
// demo, the benchmarks and the tests that must see what users run: it
// builds the binary, keeps every process's environment clear of the user's
// own config, state and Claude projects, starts "teammemd serve" on a free
// loopback port with a data directory of its own and "teammemd run"
// daemons on team directories of their own, creates tokens, reads a
// daemon's status over its control socket, and stops, kills (SIGKILL) and
// restarts processes, each with its output appended to a log file.
package proclab

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// ConfigName is the config file every process of a lab reads.
const ConfigName = "config.toml"

// Lab is a directory that holds the config, the logs and the files of
// every process started from it, and the binary they run.
type Lab struct {
	// Dir holds everything the lab's processes write.
	Dir string
	// Bin is the teammemd binary.
	Bin string
	// OnCommand, when set, is called with each command before the lab
	// runs it, to show it.
	OnCommand func(Command)

	env   []string
	mu    sync.Mutex
	procs []*Process
}

// Command is a command the lab runs.
type Command struct {
	// Env is what the command adds to the lab's environment: KEY=VALUE
	// sets a variable, KEY alone takes it out.
	Env []string
	// Program is the program the command runs: "" for the teammemd
	// binary.
	Program string
	// Args are the arguments after the program.
	Args []string
	// Output is set for a command run to completion for its output.
	Output bool
	// Input is a shell command whose output the command reads on its
	// standard input (Input.Shown), or "".
	Input string
}

// New returns a lab in dir, which must exist, running bin with env added
// to every process's environment. Its processes read an empty config file
// until SetConfig writes one.
func New(dir, bin string, env ...string) (*Lab, error) {
	l := &Lab{Dir: dir, Bin: bin}
	if err := l.SetConfig(""); err != nil {
		return nil, err
	}
	l.env = []string{"TEAMMEMD_CONFIG=" + l.ConfigPath(), "CLAUDE_CONFIG_DIR=" + filepath.Join(dir, "claude")}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "TEAMMEMD_") && !strings.HasPrefix(kv, "XDG_") && !strings.HasPrefix(kv, "NOTIFY_SOCKET=") {
			l.env = append(l.env, kv)
		}
	}
	l.env = append(l.env, env...)
	return l, nil
}

// ConfigPath is the config file the lab's processes read.
func (l *Lab) ConfigPath() string { return filepath.Join(l.Dir, ConfigName) }

// SetConfig writes the TOML config the lab's processes read from then on.
func (l *Lab) SetConfig(toml string) error {
	if err := os.WriteFile(l.ConfigPath(), []byte(toml), 0o600); err != nil {
		return fmt.Errorf("write lab config: %w", err)
	}
	return nil
}

// Start starts the binary with args and the lab's environment plus env,
// appending its output to <name>.log in the lab directory. Close stops it.
func (l *Lab) Start(name string, env []string, args ...string) (*Process, error) {
	l.show(Command{Env: env, Args: args})
	p, err := startProcess(filepath.Join(l.Dir, name+".log"), l.Bin, l.environ(env), args...)
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	l.mu.Lock()
	l.procs = append(l.procs, p)
	l.mu.Unlock()
	return p, nil
}

// Output runs the binary with args to completion and returns its trimmed
// standard output.
func (l *Lab) Output(ctx context.Context, args ...string) (string, error) {
	return l.Run(ctx, nil, nil, args...)
}

// Run runs the binary with args, the lab's environment plus env and stdin
// (nil for none) to completion, and returns its trimmed standard output.
func (l *Lab) Run(ctx context.Context, env []string, stdin io.Reader, args ...string) (string, error) {
	var in *Input
	if stdin != nil {
		in = &Input{Data: stdin}
	}
	return l.run(ctx, env, in, args...)
}

// run is Run with input shown as the command's input.
func (l *Lab) run(ctx context.Context, env []string, input *Input, args ...string) (string, error) {
	c := Command{Env: env, Args: args, Output: true}
	cmd := exec.CommandContext(ctx, l.Bin, args...)
	cmd.Env = l.environ(env)
	if input != nil {
		c.Input, cmd.Stdin = input.Shown, input.Data
	}
	l.show(c)
	return output("teammemd "+args[0], cmd)
}

// environ is the lab's environment with env added: an entry KEY=VALUE
// sets KEY, one without "=" takes KEY out (an empty value is not the same:
// Claude Code takes CLAUDE_CONFIG_DIR= for a config directory of "", the
// working directory).
func (l *Lab) environ(env []string) []string {
	out := slices.Clone(l.env)
	for _, e := range env {
		k, _, set := strings.Cut(e, "=")
		out = slices.DeleteFunc(out, func(kv string) bool { return strings.HasPrefix(kv, k+"=") })
		if set {
			out = append(out, e)
		}
	}
	return out
}

func (l *Lab) show(c Command) {
	if l.OnCommand != nil {
		l.OnCommand(c)
	}
}

// Close stops every process the lab started, newest first, and returns
// what went wrong: a process that exited with an error on its own or when
// told to stop, or one that had to be killed. It leaves the directory
// alone.
func (l *Lab) Close() error {
	l.mu.Lock()
	procs := l.procs
	l.procs = nil
	l.mu.Unlock()
	var errs []error
	for i := len(procs) - 1; i >= 0; i-- {
		errs = append(errs, procs[i].Stop())
	}
	return errors.Join(errs...)
}

// Build compiles teammemd, from the module that holds the current
// directory, into bin, with the build tags in tags (none when empty).
func Build(ctx context.Context, bin, tags string) error {
	mod, err := goOutput(ctx, "", "env", "GOMOD")
	if err != nil {
		return fmt.Errorf("find the teammemd module: %w", err)
	}
	if mod == "" || mod == os.DevNull {
		return errors.New("find the teammemd module: the current directory is not inside it (run from the repository)")
	}
	args := []string{"build", "-o", bin}
	if tags != "" {
		args = append(args, "-tags", tags)
	}
	args = append(args, "./cmd/teammemd")
	if _, err := goOutput(ctx, filepath.Dir(mod), args...); err != nil {
		return fmt.Errorf("build teammemd: %w", err)
	}
	return nil
}

// goOutput runs the go command in dir and returns its trimmed output.
func goOutput(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	return output("go "+args[0], cmd)
}

// output runs cmd, named what in errors, and returns its trimmed standard
// output; a failure carries its standard error.
func output(what string, cmd *exec.Cmd) (string, error) {
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%s: %w: %s", what, err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(string(out)), nil
}
