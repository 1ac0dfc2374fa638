package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// A team directory outside Claude Code's projects is a skip that says
// where Claude Code looks and how other agents read the notes.
func TestAgentCheckOutsideClaudeProjects(t *testing.T) {
	home := filepath.Join(t.TempDir(), ".claude")
	dir := filepath.Join(t.TempDir(), "notes", "team")
	c := agentChecker{home: home}.check(dir)
	if c.outcome != checkSkip {
		t.Errorf("check(%s) outcome = %s, want %s", dir, c.outcome, checkSkip)
	}
	for _, want := range []string{dir, filepath.Join(home, "projects"), "teammemd mcp"} {
		if !strings.Contains(c.detail, want) {
			t.Errorf("check(%s) = %q, want it to name %q", dir, c.detail, want)
		}
	}
}
