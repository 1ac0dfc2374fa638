package main

import (
	"strings"
	"testing"
	"time"

	"github.com/teammemd/teammemd/sync/daemon"
)

// TestPrintStatusRecord: the status counts unresolved conflict copies and
// shows the guards' warnings.
func TestPrintStatusRecord(t *testing.T) {
	now := time.Now()
	repo := daemon.RepoStatus{Repo: "acme/app", Dir: "/team", Server: "http://127.0.0.1:1", State: daemon.StateIdle,
		Conflict: []string{"/s/conflicts/a.md", "/s/conflicts/b.md"},
		Warnings: []daemon.Warning{{Path: "MEMORY.md", Message: "201 lines, 1809 bytes: ... are cut"}}}
	var b strings.Builder
	if err := printStatus(&b, daemon.Status{Started: now, Repos: []daemon.RepoStatus{repo}}, now); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"  warning:    MEMORY.md: 201 lines, 1809 bytes: ... are cut\n",
		"  conflicts:  2 unresolved (teammemd conflicts lists them;",
		"  conflict copy: /s/conflicts/b.md\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("printStatus() = %q, want it to contain %q", b.String(), want)
		}
	}
}
