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

// A token file holding a second line, or $TEAMMEMD_TOKEN holding one, is
// refused before any request, naming where the token came from, with the
// exit status of a credential the server would refuse: never as a server
// that cannot be reached.
func TestTokenNotOneWord(t *testing.T) {
	srv := servertest.Start(t)
	dir := t.TempDir()
	file := filepath.Join(t.TempDir(), "token")
	writeFile(t, file, srv.Token+"\n# comment\n", 0o600)
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	t.Setenv("TEAMMEMD_TOKEN", "")
	repo := []string{"--dir", dir, "--repo", "acme/app", "--server", srv.URL, "--config", writeConfig(t, "")}
	tests := []struct {
		name, env string
		args      []string
		names     string
	}{
		{"--token-file", "", append([]string{"sync", "--token-file", file}, repo...), file},
		{"$TEAMMEMD_TOKEN", srv.Token + "\n# comment", append([]string{"sync"}, repo...), "$TEAMMEMD_TOKEN"},
	}
	for _, tt := range tests {
		t.Setenv("TEAMMEMD_TOKEN", tt.env)
		stdout, stderr, code := runCLI(t, tt.args...)
		if code != exitAuth || !strings.Contains(stderr, "the API token must be one word") || !strings.Contains(stderr, tt.names) {
			t.Errorf("sync with a token of two lines from %s: exit %d, stderr %q, want %d and the token must be one word, naming %s", tt.name, code, stderr, exitAuth, tt.names)
		}
		if strings.Contains(stdout+stderr, srv.Token) {
			t.Errorf("sync with a token of two lines from %s shows the token:\n%s%s", tt.name, stdout, stderr)
		}
	}
}

// The daemon does not retry a token of two lines as a server it cannot
// reach: it names the token file and what is wrong with it, and skips the
// repo.
func TestRunTokenNotOneWord(t *testing.T) {
	srv := servertest.Start(t)
	file := filepath.Join(t.TempDir(), "token")
	writeFile(t, file, srv.Token+"\n# comment\n", 0o600)
	t.Setenv("TEAMMEMD_TOKEN", "")
	t.Setenv("TEAMMEMD_CONFIG", "")
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "MEMORY.md"), []byte("# team\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	args := []string{"--dir", dir, "--repo", "acme/app", "--server", srv.URL, "--token-file", file, "--state-dir", t.TempDir(),
		"--socket", filepath.Join(t.TempDir(), "ctl.sock"), "--log-format", "json"}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	logs := &lineWriter{lines: make(chan string, 100)}
	done := make(chan error, 1)
	go func() { done <- runDaemon(ctx, args, &bytes.Buffer{}, logs) }()
	rec := awaitLog(t, logs.lines, done, "cannot sync repo")
	if msg, _ := rec["err"].(string); !strings.Contains(msg, "the API token must be one word") || !strings.Contains(msg, file) {
		t.Errorf("run with a token file of two lines logged %v, want the token file named and the token must be one word", rec)
	}
	cancel()
	<-done
}
