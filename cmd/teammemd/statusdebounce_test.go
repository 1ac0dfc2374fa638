package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/servertest"
	"github.com/teammemd/teammemd/sync/daemon"
)

// teammemd status, asked while a note just saved waits out the daemon's
// debounce (a minute here, so the test does not race it), lists the note
// under debouncing, not as pending, and says so in the state, in --json
// and in text alike: it used to say idle, nothing pending. The note is
// pushed all the same when the daemon stops.
func TestStatusShowsSaveInDebounce(t *testing.T) {
	srv := servertest.Start(t)
	t.Setenv("TEAMMEMD_TOKEN", srv.Token)
	t.Setenv("TEAMMEMD_CONFIG", "")
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("CLAUDE_CONFIG_DIR", t.TempDir())
	dir := t.TempDir()
	sock := filepath.Join(t.TempDir(), "ctl.sock")
	cfg := writeConfig(t, "[daemon]\ndebounce = \"1m\"\nmax_wait = \"1m\"\n")
	args := []string{"--config", cfg, "--dir", dir, "--repo", "acme/app", "--server", srv.URL, "--state-dir", t.TempDir(), "--socket", sock}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var logs bytes.Buffer
	done := make(chan error, 1)
	go func() { done <- runDaemon(ctx, args, &bytes.Buffer{}, &logs) }()

	awaitRepoStatus(t, sock, "the start-up push", func(r daemon.RepoStatus) bool { return r.LastPush != nil && r.State == daemon.StateIdle })
	if text := statusText(t, sock); strings.Contains(text, "debouncing") {
		t.Errorf("teammemd status with nothing changed = %q, want no debouncing", text)
	}
	if err := os.WriteFile(filepath.Join(dir, "note.md"), []byte("saved just now\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := awaitRepoStatus(t, sock, "note.md in the debounce", func(r daemon.RepoStatus) bool { return len(r.Debouncing) > 0 })
	if !slices.Equal(r.Debouncing, []string{"note.md"}) || len(r.Pending) != 0 || r.State != daemon.StateDebouncing {
		t.Errorf("teammemd status --json: debouncing %q, pending %q, state %s; want [note.md], none, %s",
			r.Debouncing, r.Pending, r.State, daemon.StateDebouncing)
	}
	text := statusText(t, sock)
	for _, want := range []string{"state:      debouncing (", "pending:    none\n", "debouncing: note.md (changed here;"} {
		if !strings.Contains(text, want) {
			t.Errorf("teammemd status = %q, want it to contain %q", text, want)
		}
	}

	cancel()
	if err := <-done; err != nil {
		t.Fatalf("runDaemon() = %v, want nil\n%s", err, logs.String())
	}
	awaitOnServer(context.Background(), t, srv, "acme/app", "note.md", &logs)
}

// awaitRepoStatus asks teammemd status --json on sock every 20 ms, for up to
// 30 s, until its one repo satisfies cond, and returns that repo.
func awaitRepoStatus(t *testing.T, sock, what string, cond func(daemon.RepoStatus) bool) daemon.RepoStatus {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	var last string
	for {
		var stdout, stderr bytes.Buffer
		err := runStatus(context.Background(), []string{"--socket", sock, "--json"}, &stdout, &stderr)
		var st daemon.Status
		if err == nil && json.Unmarshal(stdout.Bytes(), &st) == nil && len(st.Repos) == 1 && cond(st.Repos[0]) {
			return st.Repos[0]
		}
		last = stdout.String() + stderr.String()
		if time.Now().After(deadline) {
			t.Fatalf("timed out after 30s waiting for %s; last status: %s", what, last)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// statusText is what teammemd status prints for the daemon on sock.
func statusText(t *testing.T, sock string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if err := runStatus(context.Background(), []string{"--socket", sock, "--claude", filepath.Join(t.TempDir(), "claude")}, &stdout, &stderr); err != nil {
		t.Fatalf("teammemd status: %v\n%s", err, stderr.String())
	}
	return stdout.String()
}
