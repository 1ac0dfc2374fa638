package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/service"
)

// A server URL with a user name and password, given as a flag or in the
// config, is refused by every command that takes one, saying to use a
// token, and the password is never shown or written.
func TestServerURLWithPassword(t *testing.T) {
	const password = "pa55word"
	home, bin := serviceHome(t)
	checkout, team := gitCheckout(t)
	server := "http://user:" + password + "@127.0.0.1:8787"
	tokenFile := filepath.Join(t.TempDir(), "token")
	writeFile(t, tokenFile, "tmd_x\n", 0o600)
	t.Setenv("TEAMMEMD_TOKEN", "")
	empty := writeConfig(t, "")
	inConfig := writeConfig(t, "[client]\nserver = \""+server+"\"\n")
	tests := []struct {
		name string
		run  func() (string, string, int)
	}{
		{"sync --server", func() (string, string, int) {
			return runCLI(t, "sync", "--dir", team, "--repo", "acme/app", "--server", server, "--token-file", tokenFile, "--config", empty)
		}},
		{"sync with the config's server", func() (string, string, int) {
			return runCLI(t, "sync", "--dir", team, "--repo", "acme/app", "--token-file", tokenFile, "--config", inConfig)
		}},
		{"doctor --server", func() (string, string, int) {
			return runCLI(t, "doctor", "--server", server, "--token-file", tokenFile, "--config", empty, "--socket", filepath.Join(t.TempDir(), "s"))
		}},
		{"setup claude --server", func() (string, string, int) {
			return setupCLI(t, &cmdRecorder{}, "", "claude", "--binary", bin, "--server", server, "--token-file", tokenFile,
				"--checkout", checkout, "--config", filepath.Join(t.TempDir(), "config.toml"), "--no-service")
		}},
		{"service install --server", func() (string, string, int) {
			return serviceCLI(t, service.Systemd{}, &cmdRecorder{}, "", "install", "--binary", bin, "--server", server,
				"--token-file", tokenFile, "--checkout", checkout, "--config", filepath.Join(t.TempDir(), "config.toml"))
		}},
	}
	for _, tt := range tests {
		stdout, stderr, code := tt.run()
		if code == 0 || !strings.Contains(stdout+stderr, "user name or password") || !strings.Contains(stdout+stderr, "token") {
			t.Errorf("%s with a password in the server URL: exit %d, want a refusal saying to use a token\n%s%s", tt.name, code, stdout, stderr)
		}
		if strings.Contains(stdout+stderr, password) {
			t.Errorf("%s shows the password:\n%s%s", tt.name, stdout, stderr)
		}
	}
	if out, _ := filepath.Glob(filepath.Join(home, ".config", "teammemd", "*")); len(out) > 0 {
		t.Errorf("a refused setup wrote %v", out)
	}
}
