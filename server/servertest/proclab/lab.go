// Package proclab runs the built teammemd binary as real processes, for the
// tests and benchmarks that must see what users run: it builds the binary,
// keeps every process's environment clear of the user's own config, state
// and Claude projects, starts "teammemd serve" on a free loopback port with
// a data directory of its own, creates tokens, and stops, kills (SIGKILL)
// and restarts processes, each with its output appended to a log file.
package proclab

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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

	env   []string
	mu    sync.Mutex
	procs []*Process
}

// New returns a lab in dir, which must exist, running bin. Its processes
// read an empty config file until SetConfig writes one.
func New(dir, bin string) (*Lab, error) {
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

// Env returns the environment of the lab's processes with extra added.
func (l *Lab) Env(extra ...string) []string {
	return append(append([]string{}, l.env...), extra...)
}

// Start starts the binary with args and env (from Env), appending its
// output to <name>.log in the lab directory. Close stops it.
func (l *Lab) Start(name string, env []string, args ...string) (*Process, error) {
	p, err := startProcess(filepath.Join(l.Dir, name+".log"), l.Bin, env, args...)
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
	cmd := exec.CommandContext(ctx, l.Bin, args...)
	cmd.Env = l.env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("teammemd %s: %w: %s", args[0], err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(string(out)), nil
}

// Close stops every process the lab started, newest first. It leaves the
// directory alone.
func (l *Lab) Close() {
	l.mu.Lock()
	procs := l.procs
	l.procs = nil
	l.mu.Unlock()
	for i := len(procs) - 1; i >= 0; i-- {
		procs[i].Stop()
	}
}

// Build compiles teammemd, from the module that holds the current
// directory, into bin, with the build tags in tags (none when empty).
func Build(ctx context.Context, bin, tags string) error {
	mod, err := goOutput(ctx, "", "env", "GOMOD")
	if err != nil || mod == "" || mod == os.DevNull {
		return fmt.Errorf("find the teammemd module (run from inside it): %w", err)
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
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go %s: %w: %s", args[0], err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(string(out)), nil
}
