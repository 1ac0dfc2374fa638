package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/servertest"
	"github.com/teammemd/teammemd/server/store"
	memsync "github.com/teammemd/teammemd/sync"
	"github.com/teammemd/teammemd/sync/claude"
	"github.com/teammemd/teammemd/sync/claude/claudetest"
)

// A Claude Code project created while the daemon runs, with no session
// transcript, is picked up without a reload, and its notes reach the
// server.
func TestRunPicksUpNewClaudeProject(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed: install git to run the tests on git checkouts (.ci/run does)")
	}
	srv := servertest.Start(t)
	base, home := claudetest.Home(t)
	if err := os.MkdirAll(filepath.Join(home, "projects"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TEAMMEMD_TOKEN", srv.Token)
	t.Setenv("TEAMMEMD_CONFIG", "")
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Chdir(t.TempDir())
	cfg := writeConfig(t, "[client]\nserver = '"+srv.URL+"'\n[daemon]\ndiscover_claude_projects = true\n")
	stop := startDiscoveringDaemon(t, cfg)

	checkout := claudetest.Checkout(t, filepath.Join(base, "src", "app"), "git@github.com:acme/app.git")
	team := claude.TeamDir(home, checkout)
	if err := os.MkdirAll(team, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(team, "MEMORY.md"), []byte("# team\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	awaitOnServer(context.Background(), t, srv, "acme/app", "MEMORY.md", nil)
	stop()
}

// With Claude Code's config directory unknown (no $CLAUDE_CONFIG_DIR and no
// $HOME), discovery lists itself as skipped, with the reason, instead of
// finding nothing without a word.
func TestPlanSaysClaudeHomeUnknown(t *testing.T) {
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	t.Setenv("HOME", "")
	t.Setenv("TEAMMEMD_SERVER", "")
	cfg := Config{Client: memsync.ClientConfig{Server: "http://127.0.0.1:1"}}
	cfg.Daemon.DiscoverClaudeProjects = true
	plan, err := planFor(runFlags{}, cfg)
	if err != nil {
		t.Fatalf("planFor(discovery, no home) error: %v", err)
	}
	if len(plan.Skipped) != 1 || !strings.Contains(plan.Skipped[0].Reason, "$HOME") {
		t.Errorf("planFor(discovery, no home) = %+v, want discovery skipped, saying $HOME is not set", plan)
	}
}

// A Claude Code project with no team directory, whose server holds its
// repo, is skipped while the token file gives no token, and started, its
// team directory made and its notes pulled, once the file is written,
// without a reload.
func TestRunStartsDiscoveredProjectOnceTokenFileWritten(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed: install git to run the tests on git checkouts (.ci/run does)")
	}
	srv := servertest.Start(t)
	if _, err := srv.Store.Apply(context.Background(), store.Write{Repo: "acme/app", Entries: map[string]string{"MEMORY.md": "# team\n"},
		Subject: "teammate", Time: time.Now(), MaxEntries: 100}); err != nil {
		t.Fatal(err)
	}
	base, home := claudetest.Home(t)
	checkout := claudetest.Checkout(t, filepath.Join(base, "src", "app"), "git@github.com:acme/app.git")
	team := claudetest.ProjectDir(t, home, checkout, claudetest.CwdLine(t, checkout))
	if err := os.Remove(team); err != nil {
		t.Fatal(err)
	}
	tokenFile := filepath.Join(t.TempDir(), "token")
	t.Setenv("TEAMMEMD_TOKEN", "")
	t.Setenv("TEAMMEMD_CONFIG", "")
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Chdir(t.TempDir())
	cfg := writeConfig(t, fmt.Sprintf("[client]\nserver = %q\ntoken_file = %q\n[daemon]\ndiscover_claude_projects = true\n", srv.URL, tokenFile))
	stop := startDiscoveringDaemon(t, cfg)
	if _, err := os.Stat(team); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("team directory with no token: stat = %v, want it not made", err)
	}

	if err := os.WriteFile(tokenFile, []byte(srv.Token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		if b, err := os.ReadFile(filepath.Join(team, "MEMORY.md")); err == nil && string(b) == "# team\n" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the project's notes not pulled 30 s after the token file was written")
		}
		time.Sleep(50 * time.Millisecond)
	}
	stop()
}

// startDiscoveringDaemon runs "teammemd run" with the config file cfg
// until stop, which wants it to end without an error, and waits until it
// has started.
func startDiscoveringDaemon(t *testing.T, cfg string) (stop func()) {
	t.Helper()
	args := []string{"--config", cfg, "--state-dir", t.TempDir(), "--socket", filepath.Join(t.TempDir(), "ctl.sock"), "--log-format", "json"}
	ctx, cancel := context.WithCancel(context.Background())
	logs := &lineWriter{lines: make(chan string, 1000)}
	done := make(chan error, 1)
	go func() { done <- runDaemon(ctx, args, &bytes.Buffer{}, logs) }()
	stopped := false
	stop = func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		if err := <-done; err != nil {
			t.Errorf("runDaemon() = %v, want nil", err)
		}
	}
	t.Cleanup(stop)
	awaitLog(t, logs.lines, done, "daemon starting")
	return stop
}
