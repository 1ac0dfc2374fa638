package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/server/servertest"
)

func TestSyncCommand(t *testing.T) {
	srv := servertest.Start(t)
	dir := t.TempDir()
	cfg := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(cfg, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "MEMORY.md"), []byte("# team\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	args := []string{"sync", "--dir", dir, "--repo", "acme/app", "--server", srv.URL, "--config", cfg}
	tests := []struct {
		name, token, wantOut, wantErr string
	}{
		{"push", srv.Token, "pushed    MEMORY.md", ""},
		{"idle", srv.Token, "up to date", ""},
		{"bad token", "wrong", "", "set TEAMMEMD_TOKEN"},
	}
	for _, tc := range tests {
		t.Setenv("TEAMMEMD_TOKEN", tc.token)
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), args, &stdout, &stderr)
		if tc.wantErr == "" && err != nil {
			t.Fatalf("%s: run(sync) = %v, want nil", tc.name, err)
		}
		if tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
			t.Errorf("%s: run(sync) = %v, want an error mentioning %q", tc.name, err, tc.wantErr)
		}
		if tc.wantOut == "" && stdout.Len() > 0 {
			t.Errorf("%s: run(sync) printed %q, want nothing", tc.name, stdout.String())
		}
		if !strings.Contains(stdout.String(), tc.wantOut) {
			t.Errorf("%s: run(sync) printed %q, want %q", tc.name, stdout.String(), tc.wantOut)
		}
	}
}
