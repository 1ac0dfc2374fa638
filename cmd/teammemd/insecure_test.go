package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/teammemd/teammemd/internal/lockedbuf"
	"github.com/teammemd/teammemd/sync/claude/claudetest"
)

// sentTokens is a loopback HTTP proxy that counts the requests carrying a
// bearer token that reach it, and answers each 503.
func sentTokens(t *testing.T) (proxyURL string, count *atomic.Int32) {
	t.Helper()
	count = &atomic.Int32{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.Header.Get("Authorization"), "Bearer ") {
			count.Add(1)
		}
		w.Header().Set("Retry-After", "0")
		http.Error(w, "proxy", http.StatusServiceUnavailable)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, count
}

// teammemd sync refuses to send the token over plain http:// to a host
// that is not loopback; allow_insecure = true lets it. The requests go to a
// loopback proxy standing in for the network.
func TestSyncRefusesPlainHTTPBeyondLoopback(t *testing.T) {
	bin := teammemdBinary(t)
	proxy, sent := sentTokens(t)
	dir, state := t.TempDir(), t.TempDir()
	tests := []struct {
		config   string
		wantSent bool
	}{
		{"", false},
		{"[client]\nallow_insecure = true\n", true},
	}
	for _, tt := range tests {
		sent.Store(0)
		cfg := filepath.Join(t.TempDir(), "config.toml")
		if err := os.WriteFile(cfg, []byte(tt.config), 0o600); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(bin, "sync", "--dir", dir, "--repo", "acme/app", "--server", "http://teammemd.invalid:8787",
			"--state-dir", state, "--config", cfg)
		cmd.Env = []string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH"), "TEAMMEMD_TOKEN=tmd_secret", "HTTP_PROXY=" + proxy}
		out, err := cmd.CombinedOutput()
		if got := sent.Load() > 0; got != tt.wantSent {
			t.Errorf("sync with config %q sent the token over plain http: %v, want %v\n%s", tt.config, got, tt.wantSent, out)
		}
		if !tt.wantSent && (err == nil || !strings.Contains(string(out), "allow_insecure = true")) {
			t.Errorf("sync with config %q = %v\n%s\nwant an error naming allow_insecure = true", tt.config, err, out)
		}
	}
}

// The daemon skips a configured repo on a plain http:// server beyond
// loopback, saying why, unless allow_insecure = true.
func TestRunSkipsPlainHTTPBeyondLoopback(t *testing.T) {
	isolateConfig(t)
	t.Setenv("TEAMMEMD_SERVER", "")
	repo := fmt.Sprintf("[[daemon.repo]]\ndir = %q\nrepo = \"acme/app\"\n", t.TempDir())
	for _, tt := range []struct {
		client    string
		wantSpecs int
	}{
		{"[client]\nserver = \"http://teammemd.invalid:8787\"\n", 0},
		{"[client]\nserver = \"https://teammemd.invalid\"\n", 1},
		{"[client]\nserver = \"http://127.0.0.1:8787\"\n", 1},
		{"[client]\nserver = \"http://teammemd.invalid:8787\"\nallow_insecure = true\n", 1},
	} {
		cfg, err := loadConfig(writeConfig(t, tt.client+repo))
		if err != nil {
			t.Fatal(err)
		}
		plan, err := planFor(runFlags{}, cfg)
		if err != nil || len(plan.Specs) != tt.wantSpecs {
			t.Errorf("planFor(%q) = %d repos, %v, want %d", tt.client, len(plan.Specs), err, tt.wantSpecs)
		}
		if tt.wantSpecs == 0 && (len(plan.Skipped) != 1 || !strings.Contains(plan.Skipped[0].Reason, "allow_insecure")) {
			t.Errorf("planFor(%q) skipped %+v, want the repo skipped with a reason naming allow_insecure", tt.client, plan.Skipped)
		}
	}
}

// The daemon never asks a plain http:// server beyond loopback whether it
// holds a discovered project's repo, which would send the token: the
// project is skipped, saying why, unless allow_insecure = true. The
// requests go to a loopback proxy standing in for the network.
func TestRunProbesNoPlainHTTPBeyondLoopback(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed: install git to run the tests on git checkouts (.ci/run does)")
	}
	bin := teammemdBinary(t)
	proxy, sent := sentTokens(t)
	base, home := claudetest.Home(t)
	checkout := claudetest.Checkout(t, filepath.Join(base, "src", "app"), "git@github.com:acme/app.git")
	if err := os.Remove(claudetest.ProjectDir(t, home, checkout, claudetest.CwdLine(t, checkout))); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		extra    string
		wantSent bool
	}{{"", false}, {"allow_insecure = true\n", true}} {
		sent.Store(0)
		cfg := writeConfig(t, "[client]\nserver = \"http://teammemd.invalid:8787\"\n"+tt.extra+"[daemon]\ndiscover_claude_projects = true\n")
		cmd := exec.Command(bin, "run", "--config", cfg, "--state-dir", t.TempDir(), "--socket", filepath.Join(t.TempDir(), "d.sock"))
		cmd.Env = []string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH"), "CLAUDE_CONFIG_DIR=" + home,
			"TEAMMEMD_TOKEN=tmd_secret", "HTTP_PROXY=" + proxy, "XDG_RUNTIME_DIR=" + t.TempDir()}
		var out lockedbuf.Buffer // written by the command's output copiers while read here
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(5 * time.Second)
		for time.Now().Before(deadline) && sent.Load() == 0 && !strings.Contains(out.String(), "daemon starting") {
			time.Sleep(20 * time.Millisecond)
		}
		time.Sleep(200 * time.Millisecond)
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if got := sent.Load() > 0; got != tt.wantSent {
			t.Errorf("run with [client] %q sent the token over plain http: %v, want %v\n%s", tt.extra, got, tt.wantSent, out.String())
		}
	}
}
