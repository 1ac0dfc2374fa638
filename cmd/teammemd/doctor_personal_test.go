package main

import (
	"strings"
	"testing"

	"github.com/teammemd/teammemd/sync/claude/claudetest"
	"github.com/teammemd/teammemd/sync/personal"
)

// The personal lane's checks: all pass with the key here and on the
// server; a key rotated elsewhere and a client that would sync the private
// memory itself each fail with their fix.
func TestDoctorPersonalLane(t *testing.T) {
	c := newDoctorCase(t)
	c.claude = claudetest.FakeClient(t, "2.1.328", "api_key")
	out, _ := c.run(t)
	if !strings.Contains(out, "info  personal       the personal lane is off") {
		t.Errorf("doctor without a personal key:\n%s\nwant the info line that the lane is off", out)
	}

	k := storePersonalKey(t, c.srv.URL)
	nameServerKey(t, c, k.ID(), "")
	out, _ = c.run(t)
	for _, name := range []string{"personal key", "private sync", "personal lane", "server key", "personal quota"} {
		if !strings.Contains(out, "ok    "+name+" ") {
			t.Errorf("doctor with the personal lane lacks an ok line for %s:\n%s", name, out)
		}
	}

	other, _ := personal.NewKey()
	nameServerKey(t, c, other.ID(), k.ID())
	c.claude = claudetest.FakeClient(t, "2.1.328", "claude.ai")
	out, code := c.run(t)
	for _, want := range []string{
		"FAIL  server key     the server's personal key is " + other.ID(), "fix: run teammemd personal join",
		"FAIL  private sync", "fix: teammemd setup claude --disable-client-traffic",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor after a rotation elsewhere, with a claude.ai client, lacks %q:\n%s", want, out)
		}
	}
	if code != exitFailure {
		t.Errorf("doctor exit %d, want 1", code)
	}
}

// With [personal] enabled = false the daemon runs no personal lane: doctor
// says so, and fails no check of a client that syncs the private memory
// itself, whatever personal key this machine holds.
func TestDoctorPersonalLaneOffInConfig(t *testing.T) {
	c := newDoctorCase(t)
	c.extra = "\n[personal]\nenabled = false\n"
	c.claude = claudetest.FakeClient(t, "2.1.328", "claude.ai")
	storePersonalKey(t, c.srv.URL)
	out, _ := c.run(t)
	want := "info  personal       the personal lane is off: [personal] enabled = false in the config"
	if !strings.Contains(out, want) || strings.Contains(out, "private sync") {
		t.Errorf("doctor with [personal] enabled = false:\n%s\nwant a line with %q and no private sync check", out, want)
	}
}
