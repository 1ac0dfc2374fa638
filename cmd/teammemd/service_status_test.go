package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/server/servertest"
	"github.com/teammemd/teammemd/service"
)

// service status says installed, enabled and running, from the manager,
// then shows the daemon's own status; it exits 3 unless the service runs.
func TestServiceStatus(t *testing.T) {
	srv := servertest.Start(t)
	_, bin := serviceHome(t)
	t.Setenv("TEAMMEMD_TOKEN", "")
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte(srv.Token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := writeConfig(t, fmt.Sprintf("[client]\nserver = %q\ntoken_file = %q\n[[daemon.repo]]\ndir = %q\nrepo = \"acme/app\"\n",
		srv.URL, tokenFile, t.TempDir()))
	d := runInBackground(t, cfg, "watching team directory")
	sock := d.sock
	checkHandRunDaemon(t, sock)
	if _, stderr, code := serviceCLI(t, service.Systemd{}, &cmdRecorder{}, "", "install", "--binary", bin, "--config", cfg); code != 0 {
		t.Fatalf("install: exit %d %s", code, stderr)
	}

	tests := []struct {
		active string
		code   int
		want   []string
	}{
		{"active", 0, []string{"installed: yes\n", "enabled:   yes\n", "running:   yes (active)\n", "teammemd daemon " + version + " running", "acme/app\n"}},
		{"failed", exitDaemonDown, []string{"running:   no (failed)\n"}},
	}
	for _, tt := range tests {
		rec := &cmdRecorder{answers: map[string]string{
			"systemctl --user is-enabled teammemd.service": "enabled\n",
			"systemctl --user is-active teammemd.service":  tt.active + "\n",
		}}
		stdout, stderr, code := serviceCLI(t, service.Systemd{}, rec, "", "status", "--socket", sock)
		if code != tt.code {
			t.Errorf("service status with the unit %s: exit %d, want %d\n%s%s", tt.active, code, tt.code, stdout, stderr)
		}
		for _, w := range tt.want {
			if !strings.Contains(stdout, w) {
				t.Errorf("service status with the unit %s lacks %q:\n%s", tt.active, w, stdout)
			}
		}
	}
	d.stop(t)
}

// The unit install writes passes systemd-analyze verify, with a binary
// whose path needs quoting and escaping.
func TestServiceUnitVerifies(t *testing.T) {
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("systemd-analyze not installed; install systemd to verify the unit (.ci/run does)")
	}
	home, _ := serviceHome(t)
	bin := filepath.Join(home, "my tools", "tea%mem$d")
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	checkout, _ := gitCheckout(t)
	if _, stderr, code := serviceCLI(t, service.Systemd{}, &cmdRecorder{}, "tmd_x", "install", "--binary", bin,
		"--server", "https://teammemd.example.com", "--token-stdin", "--checkout", checkout); code != 0 {
		t.Fatalf("install: exit %d %s", code, stderr)
	}
	unit := filepath.Join(home, ".config", "systemd", "user", "teammemd.service")
	verifyUnit(t, analyze, unit, []string{"--user"}, "HOME="+home, "XDG_RUNTIME_DIR="+t.TempDir())
}

// checkHandRunDaemon runs service status with no service installed and the
// daemon on sock started by hand: the service is not installed and not
// running, and a daemon runs outside the service manager, with its pid and
// socket; exit 3. An uninstalled unit is "inactive" to systemctl, and a
// unit of another installation may even be "active": neither is this one.
func checkHandRunDaemon(t *testing.T, sock string) {
	t.Helper()
	for _, active := range []string{"inactive", "active"} {
		rec := &cmdRecorder{answers: map[string]string{
			"systemctl --user is-enabled teammemd.service": "disabled\n",
			"systemctl --user is-active teammemd.service":  active + "\n",
		}}
		stdout, stderr, code := serviceCLI(t, service.Systemd{}, rec, "", "status", "--socket", sock)
		if code != exitDaemonDown {
			t.Errorf("service status, not installed, systemctl %s: exit %d, want %d\n%s%s", active, code, exitDaemonDown, stdout, stderr)
		}
		for _, w := range []string{
			"installed: no\n",
			"running:   no (not installed)\n",
			fmt.Sprintf("a daemon started by hand runs outside the service manager: pid %d, socket %s\n", os.Getpid(), sock),
			"teammemd daemon " + version + " running",
		} {
			if !strings.Contains(stdout, w) {
				t.Errorf("service status, not installed, systemctl %s, lacks %q:\n%s", active, w, stdout)
			}
		}
	}
}
