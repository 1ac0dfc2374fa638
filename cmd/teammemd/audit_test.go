package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestAdminAudit lists the writes and the purge of a leak, as JSON lines,
// never the content; --since leaves out what came before.
func TestAdminAudit(t *testing.T) {
	dir := t.TempDir()
	seedLeak(t, dir)
	if _, stderr, code := runCLI(t, "admin", "purge", "--data", dir, "--repo", "acme/app", "--key", "a.md",
		"--version", "1", "--actor", "alice", "--reason", "leaked password"); code != 0 {
		t.Fatalf("admin purge exit = %d, stderr %q", code, stderr)
	}
	out, stderr, code := runCLI(t, "admin", "audit", "--data", dir, "--json")
	if code != 0 {
		t.Fatalf("admin audit exit = %d, stderr %q, want 0", code, stderr)
	}
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var e auditEvent
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("admin audit line %q: %v", line, err)
		}
		got = append(got, e.Actor+" "+e.Action+" "+e.Key)
	}
	want := "ann wrote a.md, ann wrote a.md, ann wrote b.md, alice purged a.md"
	if strings.Join(got, ", ") != want {
		t.Errorf("admin audit = %q, want %q", strings.Join(got, ", "), want)
	}
	if strings.Contains(out, "hunter2") || strings.Contains(out, "notes") {
		t.Errorf("admin audit holds content: %q", out)
	}
	// The seeded writes are at 2026-11-22T10:00:00Z and a second apart.
	out, _, code = runCLI(t, "admin", "audit", "--data", dir, "--repo", "acme/app", "--since", "2026-11-22T10:00:02Z")
	if code != 0 || strings.Count(out, "\n") != 3 || !strings.Contains(out, " b.md ") || !strings.Contains(out, "purged") {
		t.Errorf("admin audit --since = %d, %q, want a header, b.md and the purge", code, out)
	}
	for _, bad := range [][]string{{"--since", "yesterday"}, {"--repo", "acme"}} {
		if _, _, code := runCLI(t, append([]string{"admin", "audit", "--data", dir}, bad...)...); code != 2 {
			t.Errorf("admin audit %q exit = %d, want 2", bad, code)
		}
	}
}

func TestParseSince(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Time
	}{
		{"", time.Time{}},
		{"2026-11-22T10:00:00Z", time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)},
		{"2026-11-21", time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)},
		{"90m", now.Add(-90 * time.Minute)},
	}
	for _, tt := range tests {
		got, err := parseSince(tt.in, now)
		if err != nil || !got.Equal(tt.want) {
			t.Errorf("parseSince(%q) = %v, %v, want %v", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{"soon", "-5m", "2026-13-01"} {
		if _, err := parseSince(bad, now); err == nil {
			t.Errorf("parseSince(%q) = nil error, want one", bad)
		}
	}
}
