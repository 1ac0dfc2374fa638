package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/server/servertest"
)

func TestSplitVersion(t *testing.T) {
	tests := []struct {
		arg     string
		key     string
		version int64
		wantErr bool
	}{
		{"notes/deploy.md", "notes/deploy.md", 0, false},
		{"notes/deploy.md@3", "notes/deploy.md", 3, false},
		{"notes/me@home.md", "notes/me@home.md", 0, false},
		{"notes/me@home.md@2", "notes/me@home.md", 2, false},
		{"@1", "", 1, false},
		{"good.md@abc", "", 0, true},
		{"good.md@0", "", 0, true},
		{"good.md@-1", "", 0, true},
		{"good.md@", "", 0, true},
	}
	for _, tt := range tests {
		key, version, err := splitVersion(tt.arg)
		if (err != nil) != tt.wantErr || (err == nil && (key != tt.key || version != tt.version)) {
			t.Errorf("splitVersion(%q) = %q, %d, %v, want %q, %d, error %t", tt.arg, key, version, err, tt.key, tt.version, tt.wantErr)
		}
	}
}

// An empty KEY, or a version that is no positive number, is a usage error
// found before the server is asked anything: nothing on stdout, exit 2.
func TestKeyArgsRefused(t *testing.T) {
	srv := servertest.Start(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "other.md"), []byte("other note\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	t.Setenv("TEAMMEMD_TOKEN", srv.Token)
	repo := []string{"--dir", dir, "--repo", "acme/app", "--server", srv.URL, "--config", writeConfig(t, "")}
	if _, stderr, code := runCLI(t, append([]string{"sync"}, repo...)...); code != 0 {
		t.Fatalf("sync: exit %d, want 0\n%s", code, stderr)
	}
	tests := []struct {
		args   []string
		stderr string
	}{
		{[]string{"show", ""}, "KEY is empty"},
		{[]string{"show", "@1"}, "KEY is empty"},
		{[]string{"restore", ""}, "KEY is empty"},
		{[]string{"diff", ""}, "KEY is empty"},
		{[]string{"history", ""}, "KEY is empty"},
		{[]string{"show", "../x.md"}, `KEY "../x.md": invalid key: dot path segment`},
		{[]string{"show", "good.md@abc"}, `good.md@abc: the version after @ is "abc", want a positive number`},
		{[]string{"show", "good.md@0"}, `the version after @ is "0", want a positive number`},
		{[]string{"show", "good.md@-1"}, `the version after @ is "-1", want a positive number`},
	}
	for _, tt := range tests {
		args := append(tt.args, repo...)
		stdout, stderr, code := runCLI(t, args...)
		if code != exitUsage || stdout != "" || !strings.Contains(stderr, tt.stderr) {
			t.Errorf("teammemd %q: exit %d, stdout %q, stderr %q, want exit 2, no stdout, stderr holding %q", tt.args, code, stdout, stderr, tt.stderr)
		}
	}
}
