package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/teammemd/teammemd/sync/claude/claudetest"
	"github.com/teammemd/teammemd/sync/login"
	"github.com/teammemd/teammemd/sync/personal"
)

// storePersonalKey keeps a new personal key for server in this HOME's key
// store, as init or join would.
func storePersonalKey(t *testing.T, server string) *personal.Key {
	t.Helper()
	k, err := personal.NewKey()
	if err != nil {
		t.Fatal(err)
	}
	if err := personalKeyStore(login.StorageFile).Save(context.Background(), server, personal.Keys{Current: k}); err != nil {
		t.Fatal(err)
	}
	return k
}

// With the personal lane on, setup keeps Claude Code's own private memory
// sync off: a client that would sync it needs the consent flag, and the
// stores route keeps the user store on the machine.
func TestSetupClaudeWithThePersonalLane(t *testing.T) {
	home, bin := serviceHome(t)
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	const server = "https://teammemd.example.com"
	checkout := claudetest.Checkout(t, filepath.Join(t.TempDir(), "app"), "git@github.com:acme/app.git")
	base := []string{"claude", "--binary", bin, "--server", server, "--token-stdin", "--checkout", checkout, "--no-service"}
	claudeAI := claudetest.FakeClient(t, "2.1.328", "claude.ai")
	settings := filepath.Join(home, ".claude", "settings.json")

	// Without a personal key the hook route needs no consent.
	if stdout, stderr, code := setupCLI(t, &cmdRecorder{}, "tmd_x", append(base, "--claude", claudeAI, "--route", "hook")...); code != 0 || strings.Contains(stdout, "personal lane") {
		t.Fatalf("setup without a personal key: exit %d\n%s%s", code, stdout, stderr)
	}
	if err := os.Remove(settings); err != nil {
		t.Fatal(err)
	}
	storePersonalKey(t, server)

	_, stderr, code := setupCLI(t, &cmdRecorder{}, "tmd_x", append(base, "--claude", claudeAI, "--route", "hook")...)
	if code != exitUsage || !strings.Contains(stderr, "may sync your private memory") || !strings.Contains(stderr, "--disable-client-traffic") {
		t.Fatalf("setup with the personal lane and a claude.ai login, no consent: exit %d, %s; want 2 asking for the flag", code, stderr)
	}
	if _, err := os.Stat(settings); !os.IsNotExist(err) {
		t.Errorf("a refused setup wrote %s (%v)", settings, err)
	}

	stdout, stderr, code := setupCLI(t, &cmdRecorder{}, "tmd_x", append(base, "--claude", claudeAI, "--disable-client-traffic")...)
	if code != 0 || !strings.Contains(stdout, "the user store (memory/) included, on this machine") {
		t.Fatalf("setup with consent: exit %d\n%s%s", code, stdout, stderr)
	}
	got, _ := os.ReadFile(settings)
	if gjson.GetBytes(got, "env.CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC").String() != "1" {
		t.Errorf("settings after setup with the personal lane:\n%s\nwant the client's traffic off", got)
	}

	apiKey := claudetest.FakeClient(t, "2.1.328", "api_key")
	stdout, stderr, code = setupCLI(t, &cmdRecorder{}, "tmd_x", append(base, "--claude", apiKey, "--route", "hook")...)
	if code != 0 || !strings.Contains(stdout, "does not sync its private memory itself") {
		t.Errorf("setup with an API key login: exit %d\n%s%s", code, stdout, stderr)
	}
}

// With [personal] enabled = false the daemon runs no personal lane, so
// setup asks no consent for a client that would sync the private memory
// itself, whatever personal key this machine holds.
func TestSetupClaudeWithThePersonalLaneOff(t *testing.T) {
	home, bin := serviceHome(t)
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	const server = "https://teammemd.example.com"
	config := filepath.Join(home, ".config", "teammemd", "config.toml")
	if err := os.MkdirAll(filepath.Dir(config), 0o700); err != nil {
		t.Fatal(err)
	}
	writeFile(t, config, "[personal]\nenabled = false\n", 0o600)
	storePersonalKey(t, server)
	checkout := claudetest.Checkout(t, filepath.Join(t.TempDir(), "app"), "git@github.com:acme/app.git")
	stdout, stderr, code := setupCLI(t, &cmdRecorder{}, "tmd_x", "claude", "--binary", bin, "--server", server, "--token-stdin",
		"--checkout", checkout, "--no-service", "--dry-run", "--claude", claudetest.FakeClient(t, "2.1.328", "claude.ai"), "--route", "hook")
	if code != 0 || strings.Contains(stdout+stderr, "personal lane") {
		t.Errorf("setup with [personal] enabled = false and a claude.ai login: exit %d\n%s%s\nwant 0 and no word of the personal lane", code, stdout, stderr)
	}
}
