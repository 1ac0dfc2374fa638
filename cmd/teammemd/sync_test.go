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

// sync takes its token file and state directory the way run does: flag,
// then environment, then [client] in the config.
func TestSyncTokenAndStateOptions(t *testing.T) {
	srv := servertest.Start(t)
	home := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(home, name)
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	good, wrong := write("good.token", srv.Token+"\n"), write("wrong.token", "tmd_wrong\n")
	flagState, envState, fileState := filepath.Join(home, "flag-state"), filepath.Join(home, "env-state"), filepath.Join(home, "file-state")
	withFile := write("with-file.toml", "[client]\ntoken_file = '"+wrong+"'\nstate_dir = '"+fileState+"'\n")
	empty := write("empty.toml", "")
	dir := filepath.Join(home, "team")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	write("team/MEMORY.md", "# team\n")
	t.Setenv("TEAMMEMD_TOKEN", "")
	t.Setenv("TEAMMEMD_SERVER", srv.URL)
	tests := []struct {
		name, config, envTokenFile, envState string
		flags                                []string
		wantState, wantErr                   string
	}{
		{"flags win", withFile, wrong, envState, []string{"--token-file", good, "--state-dir", flagState}, flagState, ""},
		{"environment beats config", withFile, good, envState, nil, envState, ""},
		{"config alone", withFile, "", "", nil, fileState, "--token-file, TEAMMEMD_TOKEN_FILE or [client] token_file to a valid token"},
		{"no token anywhere", empty, "", "", nil, "", "set TEAMMEMD_TOKEN, or name a file holding it with --token-file, TEAMMEMD_TOKEN_FILE or [client] token_file"},
	}
	for _, tc := range tests {
		t.Setenv("TEAMMEMD_TOKEN_FILE", tc.envTokenFile)
		t.Setenv("TEAMMEMD_STATE_DIR", tc.envState)
		args := append([]string{"sync", "--dir", dir, "--repo", "acme/app", "--config", tc.config}, tc.flags...)
		stdout, stderr, code := runCLI(t, args...)
		if tc.wantErr == "" && code != 0 {
			t.Errorf("%s: sync exit %d, stderr %q, want 0", tc.name, code, stderr)
		}
		if tc.wantErr != "" && (code == 0 || !strings.Contains(stderr, tc.wantErr)) {
			t.Errorf("%s: sync exit %d, stderr %q, want an error containing %q", tc.name, code, stderr, tc.wantErr)
		}
		if tc.wantState == "" {
			continue
		}
		if _, err := os.Stat(filepath.Join(tc.wantState, "repos")); err != nil {
			t.Errorf("%s: sync (stdout %q) kept no state in %s: %v", tc.name, stdout, tc.wantState, err)
		}
	}
}
