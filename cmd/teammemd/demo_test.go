package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/teammemd/teammemd/internal/lockedbuf"
	"github.com/teammemd/teammemd/internal/proclab"
	"github.com/teammemd/teammemd/sync/claude/claudetest"
)

// TestMain lets the demo start this test binary as teammemd child
// processes, and the scripts run it as the teammemd command.
func TestMain(m *testing.M) {
	if os.Getenv(demoEnv) == "1" {
		runAsMain()
	}
	testscript.Main(cleaningM{m}, map[string]func(){"teammemd": runAsMain})
}

// cleaningM removes the binary the tests built once they have run.
type cleaningM struct{ m *testing.M }

func (c cleaningM) Run() int {
	defer removeBuiltBinary()
	return c.m.Run()
}

// runAsMain runs teammemd as main does and exits.
func runAsMain() {
	ctx, stop := signalContext()
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(exitCode(ctx, err, os.Stderr))
}

func TestDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server and two daemons: runs without -short")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	// A Claude Code client on PATH, as on a teammate's laptop: setup
	// inspects it, and alice's status says it reads the team's notes.
	t.Setenv("PATH", filepath.Dir(claudetest.FakeClient(t, "2.1.328", "api_key"))+string(os.PathListSeparator)+os.Getenv("PATH"))
	root := t.TempDir()
	var out, errOut bytes.Buffer
	if err := run(ctx, []string{"demo", "--workdir", root}, &out, &errOut); err != nil {
		t.Fatalf("teammemd demo = %v\nstdout:\n%s\nstderr:\n%s", err, out.String(), errOut.String())
	}
	got := out.String()
	alice := filepath.Join(root, "alice")
	for _, want := range []string{
		"teammemd serve --listen 127.0.0.1:",
		"  $ ALICE_TOKEN=$(teammemd token create --data ",
		"  $ git -C " + filepath.Join(alice, "app") + " remote add origin https://github.com/demo/team-memory.git\n",
		"  $ printf %s \"$ALICE_TOKEN\" | HOME=" + alice + " teammemd setup claude --server http://127.0.0.1:",
		"     route: hook\n",
		"  $ printf %s \"$BOB_TOKEN\" | HOME=",
		"  $ HOME=" + alice + " teammemd run --config " + filepath.Join(alice, ".config", "teammemd", "config.toml"),
		"testing.md: alice's team directory -> bob's in",
		"held back: deploy.md (rules: aws-access-token, generic-api-key)",
		"the server holds: [testing.md]",
		"demo/team-memory: Claude Code 2.1.328 loads these team notes (route: hook)",
		"| HOME=" + filepath.Join(root, "bob") + " teammemd hook session-start\n",
		"   - testing.md: Running the tests - run make test before pushing; CI runs the same target (changed by alice ",
		"Everything the demo made is in " + root,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("demo output lacks %q:\n%s", want, got)
		}
	}
	// The echoed token step is a line a shell runs as the demo did.
	_, tokenLine, _ := strings.Cut(got, "  $ ALICE_TOKEN=$(")
	tokenLine, _, _ = strings.Cut(tokenLine, ")\n")
	wantArgv := []string{"teammemd", "token", "create", "--data", filepath.Join(root, "server"), "--subject", "alice", "--repos", "demo/**"}
	if argv := shellWords(t, tokenLine); !slices.Equal(argv, wantArgv) {
		t.Errorf("echoed token step %q splits into %q, want %q", tokenLine, argv, wantArgv)
	}
	if _, err := os.Stat(root); err != nil {
		t.Errorf("demo with --workdir removed its directory: %v", err)
	}
	held, err := filepath.Glob(filepath.Join(root, "bob", ".claude", "projects", "*", "memory", "team", "*.md"))
	if err != nil || len(held) != 1 || filepath.Base(held[0]) != "testing.md" {
		t.Errorf("bob's team notes = %q (%v), want testing.md alone: deploy.md is held back on alice's machine", held, err)
	}
	checkNoKey(t, root, got)
	// The demo's notes are notes as Claude Code wants them: its status
	// holds the note back for its secret and warns of nothing else.
	if strings.Contains(got, "warning:") {
		t.Errorf("demo status warns about the demo's own notes:\n%s", got)
	}
}

// With --keep the demo says how to see what bob's Claude Code is given,
// with a line a shell runs as it stands, and keeps running until stopped.
func TestDemoKeepShowsTheHookLine(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server and two daemons: runs without -short")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var out lockedbuf.Buffer
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"demo", "--keep", "--workdir", t.TempDir()}, &out, io.Discard) }()
	var line string
	_, err := waitFor(ctx, 2*time.Minute, "the demo's --keep message", func() bool {
		_, rest, ok := strings.Cut(out.String(), "What bob's Claude Code is given at a session's start, then:\n  ")
		line, _, _ = strings.Cut(rest, "\n")
		return ok && strings.Contains(rest, "Ctrl-C stops everything.")
	})
	if err != nil {
		cancel()
		t.Fatalf("%v:\n%s", err, out.String())
	}
	// The demo's binary is this test binary, which acts as teammemd in the
	// environment the demo gives its processes.
	cmd := exec.CommandContext(ctx, "sh", "-c", strings.Replace(line, "env -i ", "env -i "+demoEnv+"=1 ", 1))
	got, err := cmd.Output()
	if err != nil || !strings.Contains(string(got), "- testing.md: Running the tests - ") {
		t.Errorf("%s = %v:\n%s", line, err, got)
	}
	cancel()
	if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
		t.Errorf("teammemd demo --keep, stopped = %v", err)
	}
}

// checkNoKey fails t if the demo's access key is in its output or in a
// log under root.
func checkNoKey(t *testing.T, root, output string) {
	t.Helper()
	secret := demoSecretNote()
	key := secret[strings.Index(secret, "AKIA"):][:20]
	err := filepath.WalkDir(root, func(path string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() || filepath.Ext(path) != ".log" {
			return err
		}
		data, err := os.ReadFile(path)
		if err == nil && bytes.Contains(data, []byte(key)) {
			t.Errorf("%s contains the access key", path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(output, key) {
		t.Errorf("demo output contains the access key")
	}
}

// The demo deletes only a directory it made itself, and only after a run
// that went well; otherwise it says where the files are.
func TestFinishDemo(t *testing.T) {
	failed := errors.New("server did not start")
	tests := []struct {
		name       string
		removable  bool
		err        error
		wantGone   bool
		wantOutput string
	}{
		{"own directory, success", true, nil, true, "Removed the demo's directory "},
		{"own directory, failure", true, failed, false, "Everything the demo made is in "},
		{"--workdir or --keep", false, nil, false, "Everything the demo made is in "},
		{"--workdir, failure", false, failed, false, "Everything the demo made is in "},
	}
	for _, tt := range tests {
		root := filepath.Join(t.TempDir(), "demo")
		if err := os.MkdirAll(filepath.Join(root, "alice", "team"), 0o700); err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		err := finishDemo(&out, root, tt.removable, tt.err)
		if !errors.Is(err, tt.err) || (tt.err == nil && err != nil) {
			t.Errorf("%s: finishDemo() = %v, want %v", tt.name, err, tt.err)
		}
		_, statErr := os.Stat(root)
		if gone := os.IsNotExist(statErr); gone != tt.wantGone {
			t.Errorf("%s: directory removed = %v (stat error %v), want %v", tt.name, gone, statErr, tt.wantGone)
		}
		if want := tt.wantOutput + root; !strings.Contains(out.String(), want) {
			t.Errorf("%s: finishDemo printed %q, want %q", tt.name, out.String(), want)
		}
	}
}

func TestEchoLine(t *testing.T) {
	tests := []struct {
		c    proclab.Command
		want string
	}{
		{proclab.Command{Args: []string{"serve", "--listen", "127.0.0.1:8080", "--data", "/tmp/my demo/server"}},
			"teammemd serve --listen 127.0.0.1:8080 --data '/tmp/my demo/server'"},
		{proclab.Command{Args: []string{"token", "create", "--repos", "demo/**"}, Output: true},
			"TOKEN=$(teammemd token create --repos 'demo/**')"},
		{proclab.Command{Args: []string{"token", "create", "--subject", "alice"}, Output: true},
			"ALICE_TOKEN=$(teammemd token create --subject alice)"},
		{proclab.Command{Program: "git", Args: []string{"init", "-q", "/tmp/my demo/app"}}, "git init -q '/tmp/my demo/app'"},
		{proclab.Command{Env: []string{"HOME=/tmp/a b", "TEAMMEMD_CONFIG", "CLAUDE_CONFIG_DIR"}, Args: []string{"setup", "claude", "--token-stdin"},
			Output: true, Input: `printf %s "$ALICE_TOKEN"`},
			`printf %s "$ALICE_TOKEN" | HOME='/tmp/a b' teammemd setup claude --token-stdin`},
		{proclab.Command{Args: []string{"status"}, Output: true}, "teammemd status"},
		{proclab.Command{Env: []string{"TEAMMEMD_TOKEN=s3cret", "XDG_STATE_HOME=/tmp/s", "TEAMMEMD_SERVER=http://a b"}, Args: []string{"run"}},
			"TEAMMEMD_TOKEN=$TOKEN TEAMMEMD_SERVER='http://a b' teammemd run"},
	}
	for _, tt := range tests {
		if got := echoLine(tt.c); got != tt.want {
			t.Errorf("echoLine(%+v) = %s, want %s", tt.c, got, tt.want)
		}
	}
}

// --workdir names a directory the demo may create, and must be new or
// empty: a previous demo's team directories would make a note seem to
// travel in no time, and the demo writes nothing into a directory of the
// user's.
func TestDemoRoot(t *testing.T) {
	fresh := filepath.Join(t.TempDir(), "new", "demo")
	root, created, err := demoRoot(fresh)
	if err != nil || root != fresh || created {
		t.Fatalf("demoRoot(%s) = %q, %v, %v; want it, false (kept), nil", fresh, root, created, err)
	}
	if fi, err := os.Stat(fresh); err != nil || !fi.IsDir() {
		t.Fatalf("demoRoot did not create %s: %v", fresh, err)
	}
	if _, _, err := demoRoot(fresh); err != nil {
		t.Errorf("demoRoot of an empty directory = %v, want it used", err)
	}
	if err := os.WriteFile(filepath.Join(fresh, "notes.txt"), []byte("mine"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, _, err = demoRoot(fresh)
	var usage usageError
	if !errors.As(err, &usage) || !strings.Contains(err.Error(), "is not empty") {
		t.Errorf("demoRoot of a directory holding a file = %v, want a usage error saying it is not empty", err)
	}
	if data, err := os.ReadFile(filepath.Join(fresh, "notes.txt")); err != nil || string(data) != "mine" {
		t.Errorf("the user's file after demoRoot: %q, %v", data, err)
	}
	root, created, err = demoRoot("")
	if err != nil || !created {
		t.Fatalf("demoRoot(\"\") = %q, %v, %v; want a new temporary directory", root, created, err)
	}
	os.RemoveAll(root)
}
