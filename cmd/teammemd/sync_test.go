package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/server/servertest"
	memsync "github.com/teammemd/teammemd/sync"
	"github.com/teammemd/teammemd/sync/claude"
	"github.com/teammemd/teammemd/sync/claude/claudetest"
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
	header := "acme/app  " + dir + "\n"
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
		if !strings.HasPrefix(stdout.String(), header) {
			t.Errorf("%s: run(sync) printed %q, want it to start with %q", tc.name, stdout.String(), header)
		}
		if tc.wantOut == "" && stdout.String() != header {
			t.Errorf("%s: run(sync) printed %q, want only %q", tc.name, stdout.String(), header)
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

// gitCheckout makes a git checkout whose origin is acme/app on github.com,
// points Claude Code's config home at a temporary directory, and returns
// the checkout and the team directory teammemd finds for it.
func gitCheckout(t *testing.T) (checkout, team string) {
	t.Helper()
	t.Setenv("CLAUDE_CONFIG_DIR", t.TempDir())
	checkout = claudetest.Checkout(t, t.TempDir(), "git@github.com:acme/app.git")
	found, err := claude.Discover(checkout)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(found.Dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return checkout, found.Dir
}

// Inside a git checkout, sync finds the repo and says which one it synced.
func TestSyncDiscoversCheckout(t *testing.T) {
	srv := servertest.Start(t)
	checkout, team := gitCheckout(t)
	if err := os.WriteFile(filepath.Join(team, "MEMORY.md"), []byte("# team\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TEAMMEMD_TOKEN", srv.Token)
	t.Setenv("TEAMMEMD_CONFIG", "")
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Chdir(checkout)
	stdout, stderr, code := runCLI(t, "sync", "--server", srv.URL, "--state-dir", t.TempDir())
	if code != 0 {
		t.Fatalf("sync in a checkout exit %d, stderr %q, want 0", code, stderr)
	}
	if want := "acme/app  " + team + "\npushed    MEMORY.md\n"; stdout != want {
		t.Errorf("sync in a checkout printed %q, want %q", stdout, want)
	}
}

// TestSyncHeldBackMassDeletion deletes three of four synced notes and adds
// one: sync pushes the new note, holds the deletions back, says why and
// exits non-zero; with --allow-mass-delete it deletes them.
func TestSyncHeldBackMassDeletion(t *testing.T) {
	srv := servertest.Start(t)
	dir := t.TempDir()
	cfg := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(cfg, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	note := func(name string) string { return filepath.Join(dir, name) }
	for _, k := range []string{"a.md", "b.md", "c.md", "d.md"} {
		if err := os.WriteFile(note(k), []byte(k+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	t.Setenv("TEAMMEMD_TOKEN", srv.Token)
	args := []string{"sync", "--dir", dir, "--repo", "acme/app", "--server", srv.URL, "--config", cfg}
	if _, stderr, code := runCLI(t, args...); code != 0 {
		t.Fatalf("first sync exit %d, stderr %q, want 0", code, stderr)
	}
	for _, k := range []string{"a.md", "b.md", "c.md"} {
		if err := os.Remove(note(k)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(note("new.md"), []byte("new\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := runCLI(t, args...)
	if code == 0 || !strings.Contains(stderr, "refusing to delete them on the server") || !strings.Contains(stderr, "teammemd sync --allow-mass-delete --dir "+dir) {
		t.Errorf("sync after deleting 3 of 4: exit %d, stderr %q; want non-zero, saying why and how to delete them", code, stderr)
	}
	for _, want := range []string{"pushed    new.md", "held      a.md: deleted here, not deleted on the server"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("sync after deleting 3 of 4 printed %q, want %q", stdout, want)
		}
	}
	stdout, stderr, code = runCLI(t, append(args, "--allow-mass-delete")...)
	if code != 0 || !strings.Contains(stdout, "removed   a.md") {
		t.Errorf("sync --allow-mass-delete: exit %d, stdout %q, stderr %q; want 0 and a.md removed", code, stdout, stderr)
	}
}

// sync against a URL that does not lead to a teammemd server fails and
// says so, with the hint, instead of a bare status.
func TestSyncWrongServerURL(t *testing.T) {
	srv := servertest.Start(t)
	dir := t.TempDir()
	cfg := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(cfg, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	t.Setenv("TEAMMEMD_TOKEN", srv.Token)
	var stdout, stderr bytes.Buffer
	args := []string{"sync", "--dir", dir, "--repo", "acme/app", "--server", srv.URL + "/teammemd", "--config", cfg}
	err := run(context.Background(), args, &stdout, &stderr)
	want := "the server at " + srv.URL + "/teammemd does not answer as a teammemd server"
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "without a path") {
		t.Errorf("run(sync) = %v, want an error saying %q with the hint", err, want)
	}
	if strings.Contains(stdout.String(), "up to date") {
		t.Errorf("run(sync) printed %q, want no \"up to date\"", stdout.String())
	}
}

// TestSyncReportEscapesNames: every name and reason the report prints is
// escaped for the terminal, the held-back ones too: a file name is the
// user's or a teammate's to choose, and a control character in it must
// not reach the terminal as one.
func TestSyncReportEscapesNames(t *testing.T) {
	rep := memsync.Report{
		Pushed:        []string{"p\x1b[2J.md"},
		Held:          []memsync.Held{{Key: "h\x1b]0;title\x07/", Reason: "unreadable\x1b[31m"}},
		HeldDeletions: []string{"d\x1b[1A.md"},
		Skipped:       []memsync.Skipped{{Key: "s\x7f.md", Reason: "not a valid file name"}},
		Warnings:      []memsync.Warning{{Key: "w.md", Message: "description \"\x1b[8m\" is hidden"}},
	}
	var out strings.Builder
	printReport(&out, rep, true)
	if strings.ContainsAny(out.String(), "\x1b\x07\x7f") {
		t.Errorf("report holds a control character:\n%q", out.String())
	}
	for _, want := range []string{`pushed    p\x1b[2J.md`, `held      h\x1b]0;title\a/: unreadable\x1b[31m`, `held      d\x1b[1A.md: deleted here`} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
}

// TestSyncReportsHeldFilesOnce: a sync by hand lists a file held back for
// a secret and one that cannot sync in its report, and does not repeat
// them as log warnings on stderr (the daemon, which prints no report,
// logs them).
func TestSyncReportsHeldFilesOnce(t *testing.T) {
	srv := servertest.Start(t)
	dir := t.TempDir()
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	t.Setenv("TEAMMEMD_TOKEN", srv.Token)
	for name, data := range map[string][]byte{
		"ok.md":    []byte("fine\n"),
		"creds.md": []byte("aws_access_key_id = " + "AKIA" + "Z7QW3RTY5UIO2PLK\n"),
		"big.md":   bytes.Repeat([]byte("a line of a long note\n"), 12000),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(cfg, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	args := []string{"sync", "--dir", dir, "--repo", "acme/app", "--server", srv.URL, "--config", cfg}
	if err := run(context.Background(), args, &stdout, &stderr); err != nil {
		t.Fatalf("sync: %v\n%s", err, stderr.String())
	}
	for _, want := range []string{"pushed    ok.md", "blocked   creds.md: secret found", "skipped   big.md: 264000 bytes"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout.String())
		}
	}
	if stderr.Len() != 0 {
		t.Errorf("stderr repeats the report:\n%s", stderr.String())
	}
}
