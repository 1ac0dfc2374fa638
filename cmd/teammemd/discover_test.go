package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/servertest"
	memsync "github.com/teammemd/teammemd/sync"
)

// A Claude Code project created while the daemon runs, with no session
// transcript, is picked up without a reload, and its notes reach the
// server.
func TestRunPicksUpNewClaudeProject(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	srv := servertest.Start(t)
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(base, "claude")
	if err := os.MkdirAll(filepath.Join(home, "projects"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CLAUDE_CONFIG_DIR", home)
	t.Setenv("TEAMMEMD_TOKEN", srv.Token)
	t.Setenv("TEAMMEMD_CONFIG", "")
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Chdir(t.TempDir())
	cfg := writeConfig(t, "[client]\nserver = '"+srv.URL+"'\n[daemon]\ndiscover_claude_projects = true\n")
	args := []string{"--config", cfg, "--state-dir", t.TempDir(), "--socket", filepath.Join(t.TempDir(), "ctl.sock"), "--log-format", "json"}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	logs := &lineWriter{lines: make(chan string, 1000)}
	done := make(chan error, 1)
	go func() { done <- runDaemon(ctx, args, &bytes.Buffer{}, logs) }()
	awaitLog(t, logs.lines, done, "daemon starting")

	checkout := filepath.Join(base, "src", "app")
	if err := os.MkdirAll(checkout, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q"}, {"config", "remote.origin.url", "git@github.com:acme/app.git"}} {
		if out, err := exec.Command("git", append([]string{"-C", checkout}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	team := memsync.TeamDir(home, checkout)
	if err := os.MkdirAll(team, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(team, "MEMORY.md"), []byte("# team\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		snap, err := srv.Store.Snapshot(ctx, "acme/app", false)
		if err == nil && snap.EntryChecksums["MEMORY.md"] != "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("MEMORY.md of a project created while the daemon runs not on the server after 30s (last error %v)", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("runDaemon() = %v, want nil", err)
	}
}
