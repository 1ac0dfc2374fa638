package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/servertest"
	"github.com/teammemd/teammemd/sync/daemon"
)

func TestExampleDaemonConfigLoads(t *testing.T) {
	cfg, err := loadConfig("../../configs/daemon.toml")
	if err != nil {
		t.Fatalf("loadConfig(configs/daemon.toml) error: %v", err)
	}
	d := cfg.Daemon
	if d.Debounce != 2*time.Second || d.MaxWait != 10*time.Second || d.Rescan != 5*time.Minute || !d.DiscoverClaudeProjects {
		t.Errorf("daemon section = %+v, want 2s, 10s, 5m, discovery on", d)
	}
	if len(d.Repos) != 2 || d.Repos[0].Checkout == "" || d.Repos[1].Repo != "gitlab.example.com/platform/infra" {
		t.Errorf("daemon repos = %+v, want a checkout and an explicit dir", d.Repos)
	}
	t.Setenv("CLAUDE_CONFIG_DIR", t.TempDir())
	t.Setenv("TEAMMEMD_SERVER", "")
	plan, err := planFor(runFlags{}, cfg)
	if err != nil {
		t.Fatalf("planFor(example) error: %v", err)
	}
	// The checkout does not exist here: it is skipped with a reason, the
	// explicit dir keeps its own server.
	if len(plan.Specs) != 1 || plan.Specs[0].Server != "https://memory.gitlab-team.example.com" || len(plan.Skipped) != 1 {
		t.Errorf("planFor(example) = %+v, want the explicit repo and one skipped", plan)
	}
}

func TestDaemonConfigRejects(t *testing.T) {
	tests := []struct {
		name string
		cfg  daemon.Config
	}{
		{"negative debounce", daemon.Config{Debounce: -time.Second}},
		{"max wait below debounce", daemon.Config{Debounce: 5 * time.Second, MaxWait: time.Second}},
		{"repo with nothing", daemon.Config{Repos: []daemon.RepoConfig{{}}}},
		{"checkout and dir", daemon.Config{Repos: []daemon.RepoConfig{{Checkout: "/a", Dir: "/b", Repo: "a/b"}}}},
		{"dir without repo", daemon.Config{Repos: []daemon.RepoConfig{{Dir: "/b"}}}},
		{"bad slug", daemon.Config{Repos: []daemon.RepoConfig{{Dir: "/b", Repo: "../x"}}}},
	}
	for _, tt := range tests {
		if err := tt.cfg.Validate(); err == nil {
			t.Errorf("Validate(%s) = nil, want an error", tt.name)
		}
	}
}

func TestRunUsageErrors(t *testing.T) {
	t.Chdir(t.TempDir())
	t.Setenv("TEAMMEMD_CONFIG", "")
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("TEAMMEMD_SERVER", "")
	tokenFile := filepath.Join(t.TempDir(), "token")
	writeFile(t, tokenFile, "tmd_x\n", 0o600)
	tests := []struct {
		args []string
		want int
		says string // in the error; "" for any
	}{
		{[]string{"--dir", "x"}, 2, ""},
		{[]string{"--log-format", "xml"}, 2, ""},
		{[]string{"--dir", "x", "--repo", "acme/app"}, exitNotConfigured, ""},
		{[]string{}, exitNotConfigured, ""},
		// A server URL given as a flag is checked as the config's is: a
		// daemon of the one repo the flags name would run with none, and
		// no reload could mend a flag.
		{[]string{"--dir", "x", "--repo", "acme/app", "--token-file", tokenFile, "--server", "ftp://x"}, exitNotConfigured, "must be an http:// or https:// URL"},
		{[]string{"--dir", "x", "--repo", "acme/app", "--token-file", tokenFile, "--server", "http://example.com"}, exitNotConfigured, "refusing to send the API token"},
	}
	for _, tt := range tests {
		var stderr bytes.Buffer
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err := runDaemon(ctx, append(tt.args, "--socket", filepath.Join(t.TempDir(), "s.sock"), "--state-dir", t.TempDir()), &bytes.Buffer{}, &stderr)
		cancel()
		if got := exitCode(context.Background(), err, &stderr); got != tt.want || !strings.Contains(stderr.String(), tt.says) {
			t.Errorf("run %v = %v, exit %d, stderr %s\nwant exit %d and an error saying %q", tt.args, err, got, stderr.String(), tt.want, tt.says)
		}
	}
}

func TestStatusWhenDaemonDown(t *testing.T) {
	sock := t.TempDir() + "/none.sock"
	for _, args := range [][]string{{"--socket", sock}, {"--socket", sock, "--json"}} {
		var stdout, stderr bytes.Buffer
		err := runStatus(context.Background(), args, &stdout, &stderr)
		if got := exitCode(context.Background(), err, &stderr); got != exitDaemonDown {
			t.Errorf("status %v exit = %d, want %d", args, got, exitDaemonDown)
		}
		if !strings.Contains(stdout.String(), "not running") && !strings.Contains(stdout.String(), `"running":false`) {
			t.Errorf("status %v output = %q, want it to say the daemon is not running", args, stdout.String())
		}
	}
}

func TestPrintStatus(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	retry := now.Add(30 * time.Second)
	st := daemon.Status{PID: 42, Version: "v1", Started: now.Add(-time.Hour), Repos: []daemon.RepoStatus{{
		Repo: "acme/app", Dir: "/t", Server: "http://s", Live: false,
		LastPull: &daemon.OpResult{Time: now.Add(-time.Minute), OK: true, Result: "2 pulled"},
		Pending:  []string{"a.md"},
		Blocked: []daemon.Blocked{
			{Path: "deploy.md", RuleID: "aws-access-token"}, {Path: "creds.md", RuleID: "github-pat"},
			{Path: "deploy.md", RuleID: "generic-api-key"}, {Path: "deploy.md", RuleID: "aws-access-token"},
		},
		Conflict:   []string{"/s/conflicts/x.md"},
		Suppressed: "403 team_memory_group_acl_denied: no access",
		NextRetry:  &retry,
		State:      "retrying",
		RetryCause: "connection refused",
	}, {
		Repo: "acme/lib", Dir: "/u", Server: "http://s", NextRetry: &now,
	}}}
	var b bytes.Buffer
	if err := printStatus(&b, st, now); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"pid 42, up 1h0m0s", "acme/app", "(not connected)", "last pull:  1m0s ago, 2 pulled", "last push:  never",
		"pending:    a.md", "pushes stopped: 403", "state:      retrying", "next retry: in 30s (connection refused)",
		"next retry: now\n",
		"held back:  deploy.md (secret found: aws-access-token, generic-api-key)\n  held back:  creds.md (secret found: github-pat)\n",
		"conflict copy: /s/conflicts/x.md",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("printStatus() = %q, want it to contain %q", b.String(), want)
		}
	}
	if n := strings.Count(b.String(), "held back:"); n != 2 {
		t.Errorf("printStatus() has %d held back lines, want one per file (2):\n%s", n, b.String())
	}
}

// teammemd run keeps its scan verdicts in the state directory, so a restart
// does not rescan unchanged files.
func TestRunSavesScanVerdicts(t *testing.T) {
	srv := servertest.Start(t)
	t.Setenv("TEAMMEMD_TOKEN", srv.Token)
	t.Setenv("TEAMMEMD_CONFIG", "")
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	dir, state := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "MEMORY.md"), []byte("# Notes\n\nRun make test first.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(t.TempDir(), "ctl.sock")
	args := []string{"--dir", dir, "--repo", "acme/app", "--server", srv.URL, "--state-dir", state, "--socket", sock}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stderr bytes.Buffer
	done := make(chan error, 1)
	go func() { done <- runDaemon(ctx, args, &bytes.Buffer{}, &stderr) }()

	awaitOnServer(ctx, t, srv, "acme/app", "MEMORY.md", &stderr)
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("runDaemon() = %v, want nil\n%s", err, stderr.String())
	}
	info, err := os.Stat(scanCacheFile(state))
	if err != nil || info.Size() == 0 {
		t.Errorf("scan verdict cache after shutdown: %v, want a non-empty %s", err, scanCacheFile(state))
	}
}

// With no repo named by flags or config, run syncs the git checkout it was
// started in, as sync does, and logs which directory it watches; outside a
// checkout it says why there is nothing to sync.
func TestRunDiscoversCheckout(t *testing.T) {
	srv := servertest.Start(t)
	checkout, team := gitCheckout(t)
	if err := os.WriteFile(filepath.Join(team, "MEMORY.md"), []byte("# team\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TEAMMEMD_TOKEN", srv.Token)
	t.Setenv("TEAMMEMD_CONFIG", "")
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("TEAMMEMD_SERVER", srv.URL)
	args := []string{"--state-dir", t.TempDir(), "--socket", filepath.Join(t.TempDir(), "ctl.sock")}

	t.Chdir(t.TempDir())
	_, stderr, code := runCLI(t, append([]string{"run"}, args...)...)
	if code != exitNotConfigured || !strings.Contains(stderr, "nothing to sync") || !strings.Contains(stderr, "find git repository") {
		t.Errorf("run outside a checkout exit %d, stderr %q, want %d, nothing to sync and why discovery failed", code, stderr, exitNotConfigured)
	}

	t.Chdir(checkout)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	logs := &lineWriter{lines: make(chan string, 100)}
	done := make(chan error, 1)
	go func() { done <- runDaemon(ctx, append(args, "--log-format", "json"), &bytes.Buffer{}, logs) }()
	watching := awaitLog(t, logs.lines, done, "watching team directory")
	if watching["repo"] != "acme/app" || watching["dir"] != team {
		t.Errorf("run in a checkout logged %v, want repo acme/app and dir %s", watching, team)
	}
	awaitOnServer(ctx, t, srv, "acme/app", "MEMORY.md", nil)
	cancel()
	if err := <-done; err != nil {
		t.Errorf("runDaemon() = %v, want nil", err)
	}
}

// awaitOnServer waits up to 30 s for key to be in repo on srv, failing the
// test after that, with the daemon's logs when they are at hand.
func awaitOnServer(ctx context.Context, t *testing.T, srv *servertest.Server, repo, key string, logs *bytes.Buffer) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		snap, err := srv.Store.Snapshot(ctx, repo, false)
		if err == nil && snap.EntryChecksums[key] != "" {
			return
		}
		if time.Now().After(deadline) {
			var tail string
			if logs != nil {
				tail = "\n" + logs.String()
			}
			t.Fatalf("%s not in %s on the server after 30s (last error %v)%s", key, repo, err, tail)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
