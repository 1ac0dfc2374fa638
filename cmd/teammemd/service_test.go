package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/teammemd/teammemd/internal/lockedbuf"
	"github.com/teammemd/teammemd/server/servertest"
	"github.com/teammemd/teammemd/service"
	"github.com/teammemd/teammemd/sync/daemon"
	"github.com/teammemd/teammemd/sync/login"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden files in testdata")

// cmdRecorder is a service.Runner that records each command instead of running
// it, and answers with the output set for it; there is no user systemd or
// launchd to talk to in a test.
type cmdRecorder struct {
	calls   [][]string
	answers map[string]string
	fail    map[string]bool
}

func (r *cmdRecorder) Run(_ context.Context, argv []string) (string, error) {
	r.calls = append(r.calls, slices.Clone(argv))
	line := strings.Join(argv, " ")
	if r.fail[line] {
		return r.answers[line], errors.New("exit status 1")
	}
	return r.answers[line], nil
}

// serviceHome gives the test a home directory of its own, with a fake
// teammemd binary in $HOME/bin, and returns both paths.
func serviceHome(t *testing.T) (home, bin string) {
	t.Helper()
	home = t.TempDir()
	for _, name := range []string{"XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_DATA_HOME", "XDG_RUNTIME_DIR", "TEAMMEMD_CONFIG"} {
		t.Setenv(name, "")
	}
	t.Setenv("HOME", home)
	bin = filepath.Join(home, "bin", "teammemd")
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return home, bin
}

// serviceCLI runs "teammemd service args..." with manager m, the cmdRecorder
// rec and stdin; interactive says whether stdin is a terminal.
func serviceCLI(t *testing.T, m service.Manager, rec *cmdRecorder, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	env := service.Machine{Manager: m, Runner: rec, UID: 501, Stdin: strings.NewReader(stdin)}
	var out, errOut bytes.Buffer
	ctx := context.Background()
	err := runServiceWith(ctx, func() (service.Machine, error) { return env, nil }, args, &out, &errOut)
	code = exitCode(ctx, err, &errOut)
	return out.String(), errOut.String(), code
}

// install --dry-run prints every file and command, writes and runs
// nothing, and never shows the token.
func TestServiceInstallDryRun(t *testing.T) {
	for _, tt := range []struct {
		name    string
		manager service.Manager
	}{{"systemd", service.Systemd{}}, {"launchd", service.Launchd{}}} {
		t.Run(tt.name, func(t *testing.T) {
			home, bin := serviceHome(t)
			checkout, _ := gitCheckout(t)
			rec := &cmdRecorder{}
			stdout, stderr, code := serviceCLI(t, tt.manager, rec, "tmd_secret_token\n", "install", "--dry-run",
				"--server", "https://teammemd.example.com", "--token-stdin", "--checkout", checkout, "--binary", bin)
			if code != 0 {
				t.Fatalf("service install --dry-run exit %d\n%s", code, stderr)
			}
			if strings.Contains(stdout+stderr, "tmd_secret_token") {
				t.Errorf("dry run shows the token:\n%s", stdout)
			}
			if len(rec.calls) > 0 {
				t.Errorf("dry run ran %q, want nothing run", rec.calls)
			}
			if _, err := os.Stat(filepath.Join(home, ".config")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("dry run wrote into %s/.config: %v", home, err)
			}
			got := strings.NewReplacer(checkout, "$CHECKOUT", home, "$HOME").Replace(stdout)
			golden(t, filepath.Join("testdata", "service", tt.name+"-install-dry-run.golden"), got)
		})
	}
}

// golden compares got with the file at path, or rewrites it with -update.
func golden(t *testing.T, path, got string) {
	t.Helper()
	if *updateGolden {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to write it)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (go test -update rewrites it):\n%s", path, got)
	}
}

// install refuses what would leave the service with nothing to do, or
// send the token in the clear, naming the flag that fixes it; it writes and
// runs nothing then.
func TestServiceInstallRefuses(t *testing.T) {
	home, bin := serviceHome(t)
	checkout, _ := gitCheckout(t)
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte("tmd_x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	open := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(open, []byte("tmd_x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	twoLines := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(twoLines, []byte("tmd_x\n# comment\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	goRun := filepath.Join(t.TempDir(), "go-build123", "b001", "exe", "teammemd")
	if err := os.MkdirAll(filepath.Dir(goRun), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(goRun, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	server, repo, token := []string{"--server", "https://teammemd.example.com"}, []string{"--checkout", checkout}, []string{"--token-file", tokenFile}
	cat := func(parts ...[]string) []string {
		return slices.Concat(append([][]string{{"install", "--binary", bin}}, parts...)...)
	}
	tests := []struct {
		args []string
		want string
	}{
		{cat(repo, token), "pass --server URL"},
		{cat(server, repo), "pass --token-file FILE"},
		{cat(server, token), "pass --checkout DIR"},
		{cat(server, token, []string{"--checkout", t.TempDir()}), "--checkout"},
		{cat([]string{"--server", "http://teammemd.example.com"}, repo, token), "--allow-insecure"},
		{cat([]string{"--server", "ftp://teammemd.example.com"}, repo, token), "http:// or https://"},
		{cat(server, repo, []string{"--token-file", open}), "chmod 600 " + open},
		{cat(server, repo, []string{"--token-file", twoLines}), "token file " + twoLines + ": the API token must be one word"},
		{cat(server, repo, token, []string{"--token-stdin"}), "not both"},
		{cat(server, repo, []string{"--token-stdin"}), "the API token is empty"},
		{slices.Concat([]string{"install", "--binary", goRun}, server, repo, token), "go install ./cmd/teammemd"},
	}
	for _, tt := range tests {
		rec := &cmdRecorder{}
		_, stderr, code := serviceCLI(t, service.Systemd{}, rec, "", tt.args...)
		if code == 0 || !strings.Contains(stderr, tt.want) {
			t.Errorf("service %s: exit %d, stderr %q, want a refusal saying %q", strings.Join(tt.args, " "), code, stderr, tt.want)
		}
		if len(rec.calls) > 0 {
			t.Errorf("service %s ran %q", strings.Join(tt.args, " "), rec.calls)
		}
		if _, err := os.Stat(filepath.Join(home, ".config")); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("service %s wrote into %s/.config", strings.Join(tt.args, " "), home)
		}
	}
	_, stderr, code := serviceCLI(t, service.Systemd{}, &cmdRecorder{}, "", cat([]string{"--server", "http://teammemd.example.com", "--allow-insecure"}, repo, token)...)
	cfg, err := loadConfig(filepath.Join(home, ".config", "teammemd", "config.toml"))
	if code != 0 || err != nil || !cfg.Client.AllowInsecure {
		t.Errorf("install --allow-insecure: exit %d %s, config %+v %v; want allow_insecure = true", code, stderr, cfg.Client, err)
	}
}

// An existing config is kept as it is: install appends what it lacks, and
// refuses a flag that contradicts it.
func TestServiceInstallKeepsConfig(t *testing.T) {
	home, bin := serviceHome(t)
	checkout, _ := gitCheckout(t)
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte("tmd_x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(home, ".config", "teammemd", "config.toml")
	mine := "# my settings\n[daemon]\ndebounce = \"3s\" # a bit slower\n\n[scan]\nallow_stopwords = [\"example\"]"
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(mine), 0o600); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := serviceCLI(t, service.Systemd{}, &cmdRecorder{}, "", "install", "--binary", bin,
		"--server", "https://teammemd.example.com", "--token-file", tokenFile, "--checkout", checkout)
	data, _ := os.ReadFile(path)
	cfg, err := loadConfig(path)
	if code != 0 || !strings.HasPrefix(string(data), mine+"\n") || err != nil || cfg.Daemon.Debounce.String() != "3s" ||
		cfg.Client.Server != "https://teammemd.example.com" || len(cfg.Daemon.Repos) != 1 {
		t.Errorf("install on an existing config: exit %d %s\n%s\n(%v); want the old text kept and the rest appended", code, stderr, data, err)
	}
	_, stderr, code = serviceCLI(t, service.Systemd{}, &cmdRecorder{}, "", "install", "--binary", bin, "--server", "https://other.example.com")
	if code == 0 || !strings.Contains(stderr, "already sets [client] server") {
		t.Errorf("install --server other: exit %d, stderr %q, want a refusal naming the config's server", code, stderr)
	}
	other := filepath.Join(t.TempDir(), "token2")
	if err := os.WriteFile(path, []byte("[client]\nstate_dir = \"/tmp/s\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(other, []byte("tmd_y\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, stderr, code = serviceCLI(t, service.Systemd{}, &cmdRecorder{}, "", "install", "--binary", bin,
		"--server", "https://teammemd.example.com", "--token-file", other, "--checkout", checkout)
	if code == 0 || !strings.Contains(stderr, "add to the [client] section of "+path) || !strings.Contains(stderr, `token_file = "`+other+`"`) {
		t.Errorf("install into a [client] table: exit %d, stderr %q, want the lines to add", code, stderr)
	}
}

// On a terminal, install asks for what the flags and the config lack; the
// token is read without echo.
func TestServiceInstallAsks(t *testing.T) {
	home, bin := serviceHome(t)
	checkout, _ := gitCheckout(t)
	var out, errOut bytes.Buffer
	env := service.Machine{
		Manager: service.Systemd{}, Runner: &cmdRecorder{}, UID: 501, Interactive: true,
		Stdin:      strings.NewReader("https://teammemd.example.com\n" + checkout + "\n"),
		ReadSecret: func() (string, error) { return "tmd_typed\n", nil },
	}
	err := runServiceWith(context.Background(), func() (service.Machine, error) { return env, nil },
		[]string{"install", "--binary", bin}, &out, &errOut)
	if err != nil {
		t.Fatalf("service install with answers = %v\n%s", err, errOut.String())
	}
	for _, q := range []string{"Server URL", "API token", "Git checkout to sync"} {
		if !strings.Contains(errOut.String(), q) {
			t.Errorf("install did not ask for %q:\n%s", q, errOut.String())
		}
	}
	cfg, err := loadConfig(filepath.Join(home, ".config", "teammemd", "config.toml"))
	if err != nil || cfg.Client.Server != "https://teammemd.example.com" || len(cfg.Daemon.Repos) != 1 || cfg.Daemon.Repos[0].Checkout != checkout {
		t.Errorf("config from answers = %+v, %v", cfg, err)
	}
	if tok, _ := os.ReadFile(cfg.Client.TokenFile); string(tok) != "tmd_typed\n" {
		t.Errorf("token file from the answer holds %q, want tmd_typed", tok)
	}
}

// A login from teammemd login is the token source when there is one for
// the server: install then needs no token and writes no token file.
func TestServiceInstallWithLogin(t *testing.T) {
	home, bin := serviceHome(t)
	checkout, _ := gitCheckout(t)
	rec := login.Record{Server: "https://teammemd.example.com", AccessToken: "x", Expiry: time.Now().Add(time.Hour)}
	if err := loginStore("").Save(rec); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := serviceCLI(t, service.Systemd{}, &cmdRecorder{}, "", "install", "--binary", bin,
		"--server", "https://teammemd.example.com", "--checkout", checkout)
	cfg, err := loadConfig(filepath.Join(home, ".config", "teammemd", "config.toml"))
	if code != 0 || err != nil || cfg.Client.TokenFile != "" {
		t.Errorf("install with a login: exit %d %s, config %+v %v; want success and no token_file", code, stderr, cfg.Client, err)
	}
}

// With no user service manager answering (no systemd user session, as over
// ssh without lingering), install writes the config and the token file it
// was given, installs no service, and prints the line that runs the daemon
// by hand: that line syncs with what was written.
func TestServiceInstallWithoutAManager(t *testing.T) {
	home, bin := serviceHome(t)
	for _, name := range []string{"TEAMMEMD_TOKEN", "TEAMMEMD_TOKEN_FILE", "TEAMMEMD_SERVER"} {
		t.Setenv(name, "")
	}
	srv := servertest.Start(t)
	checkout, _ := gitCheckout(t)
	rec := &cmdRecorder{fail: map[string]bool{"systemctl --user show-environment": true},
		answers: map[string]string{"systemctl --user show-environment": "Failed to connect to bus: No medium found"}}
	_, stderr, code := serviceCLI(t, service.Systemd{}, rec, srv.Token, "install", "--binary", bin,
		"--server", srv.URL, "--token-stdin", "--checkout", checkout)
	config := filepath.Join(home, ".config", "teammemd", "config.toml")
	wrote := "wrote the config " + config + " and the token file " + filepath.Join(home, ".config", "teammemd", "token")
	for _, want := range []string{"Failed to connect to bus", wrote, "no service was installed", "loginctl enable-linger", bin + " run --config " + config} {
		if code == 0 || !strings.Contains(stderr, want) {
			t.Errorf("install with no systemd user manager: exit %d, stderr %q; want a failure saying %q", code, stderr, want)
		}
	}
	if slicesHave(rec.calls, "systemctl --user restart teammemd.service") {
		t.Errorf("install ran the service commands with no manager answering: %v", rec.calls)
	}
	_, line, ok := strings.Cut(stderr, "run the daemon yourself: ")
	if !ok {
		t.Fatalf("install printed no run line:\n%s", stderr)
	}
	args := shellWords(t, strings.TrimSpace(line))
	if len(args) < 2 || args[0] != bin {
		t.Fatalf("run line %q does not run %s", line, bin)
	}
	sock := filepath.Join(t.TempDir(), "d.sock")
	runUntilSynced(t, append(args[1:], "--socket", sock), sock)

	_, stderr, code = serviceCLI(t, service.Systemd{}, rec, "", "install", "--binary", bin)
	if code == 0 || !strings.Contains(stderr, "nothing was written, and no service was installed") {
		t.Errorf("install again with no manager: exit %d, stderr %q; want nothing written", code, stderr)
	}
}

// runUntilSynced runs "teammemd args..." until the test ends, and waits
// until every repo of the daemon answering on sock reached its server and
// is idle; it fails the test when run ends first.
func runUntilSynced(t *testing.T, args []string, sock string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	var errOut lockedbuf.Buffer
	var runErr error
	go func() {
		defer close(done)
		runErr = run(ctx, args, io.Discard, &errOut)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	wait, stop := context.WithTimeout(ctx, time.Minute)
	defer stop()
	for {
		if st, err := daemon.FetchStatus(wait, sock); err == nil && synced(st) {
			return
		}
		select {
		case <-done:
			t.Fatalf("teammemd %s ended: %v\n%s", strings.Join(args, " "), runErr, errOut.String())
		case <-wait.Done():
			t.Fatalf("teammemd %s did not sync within a minute\n%s", strings.Join(args, " "), errOut.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// synced reports whether the daemon has repos, each idle after its server
// answered.
func synced(st daemon.Status) bool {
	for _, r := range st.Repos {
		if r.State != daemon.StateIdle || r.LastContact == nil {
			return false
		}
	}
	return len(st.Repos) > 0
}

// service install and setup claude, given a config file they cannot use,
// exit 78 as every command does for a config that does not load, and
// change nothing.
func TestInstallBadConfig(t *testing.T) {
	home, bin := serviceHome(t)
	checkout, _ := gitCheckout(t)
	tokenFile := filepath.Join(t.TempDir(), "token")
	writeFile(t, tokenFile, "tmd_x\n", 0o600)
	cfg := writeConfig(t, "[client]\nserverr = \"https://teammemd.example.com\"\n")
	flags := []string{"--binary", bin, "--config", cfg, "--server", "https://teammemd.example.com", "--token-file", tokenFile, "--checkout", checkout}
	rec := &cmdRecorder{}
	_, stderr, code := serviceCLI(t, service.Systemd{}, rec, "", append([]string{"install"}, flags...)...)
	if code != exitConfig || !strings.Contains(stderr, "unknown key client.serverr") {
		t.Errorf("service install with a bad config: exit %d, stderr %q, want %d naming the key", code, stderr, exitConfig)
	}
	_, stderr, code = setupCLI(t, rec, "", append([]string{"claude", "--no-service"}, flags...)...)
	if code != exitConfig || !strings.Contains(stderr, "unknown key client.serverr") {
		t.Errorf("setup claude with a bad config: exit %d, stderr %q, want %d naming the key", code, stderr, exitConfig)
	}
	if len(rec.calls) > 0 {
		t.Errorf("install with a bad config ran %q", rec.calls)
	}
	if _, err := os.Stat(filepath.Join(home, ".config")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("install with a bad config wrote into %s/.config", home)
	}
}
