package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/servertest"
)

// sync exits non-zero, with the count, when files stay unsent because the
// server's entry limit leaves no room for them; once they are gone, it
// exits 0 again.
func TestSyncFailsWhenEntryLimitLeavesFilesOut(t *testing.T) {
	lim := api.DefaultLimits()
	lim.MaxEntries = 5
	srv := servertest.Start(t, servertest.WithLimits(lim))
	dir, state := t.TempDir(), t.TempDir()
	for i := range 8 {
		writeTeamFile(t, dir, fmt.Sprintf("note%d.md", i), "note\n")
	}
	stdout, stderr, code := syncCLI(t, srv, dir, state, "")
	want := "3 of 8 files were not pushed: the server holds at most 5 entries per repo"
	if code != 1 || !strings.Contains(stderr, want) {
		t.Errorf("sync exit = %d, stderr %q; want 1 and %q (stdout %q)", code, stderr, want, stdout)
	}
	if n := len(serverKeys(t, srv)); n != 5 {
		t.Errorf("server holds %d entries, want 5", n)
	}
	// Still over the limit: still non-zero.
	if _, stderr, code = syncCLI(t, srv, dir, state, ""); code != 1 || !strings.Contains(stderr, want) {
		t.Errorf("second sync exit = %d, stderr %q; want 1 and %q", code, stderr, want)
	}
}
