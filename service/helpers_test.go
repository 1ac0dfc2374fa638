package service

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"github.com/teammemd/teammemd/sync/claude"
	"github.com/teammemd/teammemd/sync/claude/claudetest"
	"github.com/teammemd/teammemd/sync/login"
)

// recorder is a Runner that records each command instead of running it,
// and answers with the output set for it; there is no user systemd or
// launchd to talk to in a test.
type recorder struct {
	calls   [][]string
	answers map[string]string
	fail    map[string]bool
}

func (r *recorder) Run(_ context.Context, argv []string) (string, error) {
	r.calls = append(r.calls, slices.Clone(argv))
	line := strings.Join(argv, " ")
	if r.fail[line] {
		return r.answers[line], errors.New("exit status 1")
	}
	return r.answers[line], nil
}

// home gives the test a home directory of its own, with a teammemd binary
// in $HOME/bin, and returns both paths.
func home(t *testing.T) (dir, bin string) {
	t.Helper()
	dir = t.TempDir()
	t.Setenv("HOME", dir)
	bin = filepath.Join(dir, "bin", "teammemd")
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir, bin
}

// testEnv is the environment of a user whose home is dir, with manager m,
// the recorder rec and stdin.
func testEnv(dir string, m Manager, rec *recorder, stdin string) Env {
	config := filepath.Join(dir, ".config", "teammemd")
	return Env{
		Machine:    Machine{Manager: m, Runner: rec, UID: 501, Stdin: strings.NewReader(stdin)},
		Dirs:       Dirs{ConfigHome: filepath.Join(dir, ".config"), Config: config, State: filepath.Join(dir, ".local", "state", "teammemd")},
		ConfigFile: filepath.Join(config, "config.toml"),
		Decode:     decode,
		Logins:     login.Store{Dir: filepath.Join(config, "logins")},
	}
}

// decode decodes the [client] and [daemon] sections strictly and
// validates them, as teammemd's own config does.
func decode(path string, data []byte) (Config, error) {
	var cfg Config
	md, err := toml.Decode(string(data), &cfg)
	if err != nil {
		return cfg, fmt.Errorf("config %s: %w", path, err)
	}
	if un := md.Undecoded(); len(un) > 0 {
		return cfg, fmt.Errorf("config %s: unknown keys %v", path, un)
	}
	if err := cfg.Client.Validate(); err != nil {
		return cfg, fmt.Errorf("config %s: [client]: %w", path, err)
	}
	if err := cfg.Daemon.Validate(); err != nil {
		return cfg, fmt.Errorf("config %s: [daemon]: %w", path, err)
	}
	return cfg, nil
}

// checkout is a git checkout of acme/app with its team directory.
func checkout(t *testing.T) string {
	t.Helper()
	t.Setenv("CLAUDE_CONFIG_DIR", t.TempDir())
	dir := claudetest.Checkout(t, t.TempDir(), "git@github.com:acme/app.git")
	found, err := claude.Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(found.Dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return dir
}

// install runs Install in env with o and returns its output.
func install(t *testing.T, env Env, o Options) (stdout, stderr string, err error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err = Install(context.Background(), env, o, &out, &errOut)
	return out.String(), errOut.String(), err
}

// argvs lists the commands of cmds.
func argvs(cmds ...[]Cmd) [][]string {
	var out [][]string
	for _, cs := range cmds {
		for _, c := range cs {
			out = append(out, c.Argv)
		}
	}
	return out
}

func readAll(t *testing.T, paths ...string) []string {
	t.Helper()
	var out []string
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(data))
	}
	return out
}
