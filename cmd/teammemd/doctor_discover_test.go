package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/sync/claude"
	"github.com/teammemd/teammemd/sync/claude/claudetest"
)

// With discovery on, a Claude Code project whose checkout is gone and one
// with no team directory yet are info lines that say why they are not
// synced: neither fails, and no fix names a [[daemon.repo]] entry that
// does not exist.
func TestDoctorDiscoveredProjects(t *testing.T) {
	c := newDoctorCase(t)
	base, home := claudetest.Home(t)
	stale := filepath.Join(home, "projects", "-nowhere-gone-app")
	if err := os.MkdirAll(stale, 0o700); err != nil {
		t.Fatal(err)
	}
	checkout := claudetest.Checkout(t, filepath.Join(base, "src", "other"), "git@github.com:acme/other.git")
	noTeam := filepath.Dir(filepath.Dir(claude.TeamDir(home, checkout)))
	if err := os.MkdirAll(filepath.Join(noTeam, "memory"), 0o700); err != nil {
		t.Fatal(err)
	}
	c.extra = "[daemon]\ndiscover_claude_projects = true\n"
	out, _ := c.run(t)
	// No daemon runs here: its check alone fails.
	if n := strings.Count(out, "FAIL"); n != 1 || !strings.Contains(out, "FAIL  daemon ") || strings.Contains(out, "[[daemon.repo]]") {
		t.Errorf("doctor with a stale project and one with no team directory:\n%s\nwant no FAIL but the daemon's, and no [[daemon.repo]] fix", out)
	}
	for _, want := range []string{
		"info  project        claude project " + stale + ": not synced: ",
		"info  project        claude project " + noTeam + ": not synced: " + filepath.Join(noTeam, "memory", "team") + " does not exist yet",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor output lacks %q:\n%s", want, out)
		}
	}
}

// With discovery on and no project found yet, there is nothing to fix.
func TestDoctorDiscoveryFindsNothing(t *testing.T) {
	c := newDoctorCase(t)
	claudetest.Home(t)
	c.extra = "[daemon]\ndiscover_claude_projects = true\n"
	text := strings.Replace(c.configText(), "[[daemon.repo]]\ncheckout = \""+c.checkout+"\"\n", "", 1)
	c.configFile(t, text)
	out, _ := c.run(t)
	if line := checkLine(out, "repos"); !strings.HasPrefix(line, "info  repos          no Claude Code project found yet") {
		t.Errorf("doctor with discovery and no project: repos line %q, want an info line\n%s", line, out)
	}
}

// Outside a checkout, with no repo in the config, the repos line names
// what doctor takes, never a flag it does not have.
func TestDoctorOutsideCheckout(t *testing.T) {
	c := newDoctorCase(t)
	text := strings.Replace(c.configText(), "[[daemon.repo]]\ncheckout = \""+c.checkout+"\"\n", "", 1)
	c.configFile(t, text)
	out, code := c.run(t)
	line := failLine(out, "repos")
	if code != 1 || !strings.Contains(line, "nothing to sync") || !strings.Contains(line, "--config") || strings.Contains(line, "--dir") || strings.Contains(line, "--repo") {
		t.Errorf("doctor outside a checkout: exit %d, repos line %q, want 1, nothing to sync and --config, without --dir or --repo\n%s", code, line, out)
	}
}
