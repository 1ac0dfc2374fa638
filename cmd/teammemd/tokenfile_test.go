package main

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/teammemd/teammemd/server/servertest"
	memsync "github.com/teammemd/teammemd/sync"
	"github.com/teammemd/teammemd/sync/daemon"
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

// The daemon does not retry a token file that gives no token (two
// lines, empty, or not there yet) as a server it cannot reach, nor skip
// the repo: it logs and reports that the repo waits for a valid token
// file, naming the file and what is wrong with it, sends nothing, and
// starts the repo once the file holds a token, with no reload.
func TestRunWaitsForTokenFile(t *testing.T) {
	srv := servertest.Start(t)
	isolateConfig(t)
	t.Setenv("TEAMMEMD_TOKEN", "")
	tokens := t.TempDir()
	repos := []struct{ repo, content, problem string }{
		{"acme/two-lines", srv.Token + "\n# comment\n", "the API token must be one word"},
		{"acme/empty", "", "is empty"},
		{"acme/missing", "", "no such file"},
	}
	var config strings.Builder
	files := map[string]string{}
	for _, r := range repos {
		dir, file := t.TempDir(), filepath.Join(tokens, filepath.Base(r.repo))
		writeFile(t, filepath.Join(dir, "MEMORY.md"), "# "+r.repo+"\n", 0o600)
		if r.problem != "no such file" {
			writeFile(t, file, r.content, 0o600)
		}
		files[r.repo] = file
		fmt.Fprintf(&config, "[[daemon.repo]]\ndir = %q\nrepo = %q\ntoken_file = %q\n\n", dir, r.repo, file)
	}
	sock := filepath.Join(t.TempDir(), "ctl.sock")
	configFile := writeConfig(t, "[client]\nserver = "+strconv.Quote(srv.URL)+"\n\n"+config.String())
	args := []string{"--config", configFile, "--state-dir", t.TempDir(), "--socket", sock, "--log-format", "json"}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	logs := &lineWriter{lines: make(chan string, 100)}
	done := make(chan error, 1)
	go func() { done <- runDaemon(ctx, args, &bytes.Buffer{}, logs) }()

	logged := map[string]string{}
	for range repos {
		rec := awaitLog(t, logs.lines, done, "waiting for a valid token file; the repo starts when the file changes")
		repo, _ := rec["repo"].(string)
		logged[repo], _ = rec["err"].(string)
	}
	st, ok := statusOf(t, sock)
	if !ok {
		t.Fatal("teammemd status --json: no daemon answers")
	}
	for _, r := range repos {
		if !strings.Contains(logged[r.repo], files[r.repo]) || !strings.Contains(logged[r.repo], r.problem) {
			t.Errorf("%s: logged %q, want the token file named and %q", r.repo, logged[r.repo], r.problem)
		}
		got := repoIn(st, r.repo)
		if got.State != daemon.StateNoToken || !strings.Contains(got.Halted, "waiting for a valid token file") || !strings.Contains(got.Halted, r.problem) {
			t.Errorf("%s: status %q, stopped %q; want %s, waiting for a valid token file because %q", r.repo, got.State, got.Halted, daemon.StateNoToken, r.problem)
		}
		if snap, err := srv.Store.Snapshot(ctx, r.repo, false); err == nil && len(snap.EntryChecksums) > 0 {
			t.Errorf("%s: the server holds %v before the token file was fixed, want nothing", r.repo, snap.EntryChecksums)
		}
	}
	if len(st.Skipped) != 0 {
		t.Errorf("status skips %v, want the repos listed as waiting", st.Skipped)
	}
	var text bytes.Buffer
	if err := runStatus(ctx, []string{"--socket", sock, "--claude", filepath.Join(t.TempDir(), "no-claude")}, &text, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(text.String(), "state:      no-token (the token file gives no token"); n != len(repos) {
		t.Errorf("teammemd status says no-token with its hint %d times, want %d:\n%s", n, len(repos), text.String())
	}
	var doc bytes.Buffer
	if err := runDoctorWith(ctx, realDoctorEnv(), []string{"--config", configFile, "--socket", sock}, &doc, &bytes.Buffer{}); err == nil {
		t.Errorf("teammemd doctor passed while every repo waits for its token file:\n%s", doc.String())
	}
	for _, r := range repos {
		if want := "FAIL  daemon         " + r.repo + ": no-token, nothing syncs; fix: waiting for a valid token file"; !strings.Contains(doc.String(), want) {
			t.Errorf("teammemd doctor has no line %q:\n%s", want, doc.String())
		}
	}

	for _, r := range repos {
		writeFile(t, files[r.repo], srv.Token+"\n", 0o600)
	}
	for _, r := range repos {
		awaitOnServer(ctx, t, srv, r.repo, "MEMORY.md", nil)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("runDaemon() = %v, want nil", err)
	}
}

// repoIn is the status of repo in st, empty when st lists none.
func repoIn(st daemon.Status, repo string) daemon.RepoStatus {
	for _, r := range st.Repos {
		if r.Repo == repo {
			return r
		}
	}
	return daemon.RepoStatus{}
}

// A token file named by a relative path, with --token-file or
// $TEAMMEMD_TOKEN_FILE, is taken against the working directory and named
// by its absolute path from then on, as a daemon's reasons name it in a
// status read from anywhere.
func TestRelativeTokenFileMadeAbsolute(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	t.Setenv(envTokenFile, "env-token")
	var c clientFlags
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	c.register(fs)
	if got := c.resolve(memsync.ClientConfig{}).TokenFile; got != filepath.Join(dir, "env-token") {
		t.Errorf("$%s=env-token resolves to %q, want %s", envTokenFile, got, filepath.Join(dir, "env-token"))
	}
	if err := fs.Parse([]string{"--token-file", "sub/token"}); err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(dir, "sub", "token")
	if got := c.resolve(memsync.ClientConfig{}).TokenFile; got != want {
		t.Errorf("--token-file sub/token resolves to %q, want %s", got, want)
	}
	if got := newTokenRule(c, memsync.ClientConfig{}).FlagFile; got != want {
		t.Errorf("the token rule's flag file = %q, want %s", got, want)
	}
}
