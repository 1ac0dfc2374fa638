package main

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/teammemd/teammemd/server/servertest"
	"github.com/teammemd/teammemd/service"
	"github.com/teammemd/teammemd/sync/claude/claudetest"
	"github.com/teammemd/teammemd/sync/claude/route"
	"github.com/teammemd/teammemd/sync/daemon"
	"github.com/teammemd/teammemd/sync/daemon/control"
)

// setupCLI runs "teammemd setup args..." with the systemd manager and rec.
func setupCLI(t *testing.T, rec *cmdRecorder, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	env := service.Machine{Manager: service.Systemd{}, Runner: rec, UID: 501, Stdin: strings.NewReader(stdin)}
	var out, errOut bytes.Buffer
	ctx := context.Background()
	err := runSetupWith(ctx, func() (service.Machine, error) { return env, nil }, args, &out, &errOut)
	code = exitCode(ctx, err, &errOut)
	return out.String(), errOut.String(), code
}

func TestSetupClaude(t *testing.T) {
	home, bin := serviceHome(t)
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	checkout := claudetest.Checkout(t, filepath.Join(t.TempDir(), "app"), "git@github.com:acme/app.git")
	settings := filepath.Join(home, ".claude", "settings.json")
	if err := os.MkdirAll(filepath.Dir(settings), 0o700); err != nil {
		t.Fatal(err)
	}
	writeFile(t, settings, `{"model": "opus", "env": {"FOO": "bar"}}`, 0o644)
	orig, _ := os.ReadFile(settings)
	claudeBin := claudetest.FakeClient(t, "2.1.328", "claude.ai")
	base := []string{"claude", "--binary", bin, "--server", "https://teammemd.example.com", "--token-stdin", "--checkout", checkout, "--claude", claudeBin}

	// The stores route on a claude.ai login needs the consent flag.
	_, stderr, code := setupCLI(t, &cmdRecorder{}, "tmd_x", append(base, "--route", "stores")...)
	if code != 2 || !strings.Contains(stderr, "--disable-client-traffic") {
		t.Fatalf("setup --route stores without consent: exit %d, %s; want 2 naming the flag", code, stderr)
	}
	if got, _ := os.ReadFile(settings); !bytes.Equal(got, orig) {
		t.Fatalf("a refused setup changed the settings:\n%s", got)
	}

	rec := &cmdRecorder{}
	stdout, stderr, code := setupCLI(t, rec, "tmd_x", append(base, "--disable-client-traffic")...)
	if code != 0 {
		t.Fatalf("setup claude: exit %d\n%s%s", code, stdout, stderr)
	}
	got, _ := os.ReadFile(settings)
	for path, want := range map[string]string{
		"model": "opus", "env.FOO": "bar", "env.CLAUDE_MEMORY_STORES": route.StoresValue,
		"env.CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "hooks.SessionStart.0.hooks.0.command": bin + " hook session-start",
	} {
		if v := gjson.GetBytes(got, path).String(); v != want {
			t.Errorf("settings %s = %q, want %q", path, v, want)
		}
	}
	for _, want := range []string{"route: stores", "2.1.328", "claude.ai login", "trade-off", "systemd user unit and started",
		"acme/app: Claude Code 2.1.328 loads these team notes (route: hook, stores)"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("setup output lacks %q:\n%s", want, stdout)
		}
	}
	if !slicesHave(rec.calls, "systemctl --user restart teammemd.service") {
		t.Errorf("setup did not start the service: %v", rec.calls)
	}
	userConfig := filepath.Join(home, ".claude.json")
	if got, _ := os.ReadFile(userConfig); gjson.GetBytes(got, "mcpServers.teammemd.command").String() != bin ||
		gjson.GetBytes(got, "mcpServers.teammemd.args").Raw != `["mcp"]` || gjson.GetBytes(got, "mcpServers.teammemd.type").String() != "stdio" {
		t.Errorf("%s = %s, want mcpServers.teammemd running %s mcp", userConfig, got, bin)
	}
	verdict := route.Inspect(route.Find(context.Background(), claudeBin), filepath.Join(home, ".claude"), checkout, func(string) string { return "" })
	if !verdict.Loads() || len(verdict.Warnings) != 0 {
		t.Errorf("after setup: %+v, want the team directory loaded and no upload warning", verdict)
	}

	running := &cmdRecorder{answers: map[string]string{"systemctl --user is-enabled teammemd.service": "enabled\n",
		"systemctl --user is-active teammemd.service": "active\n"}}
	stdout, stderr, code = setupCLI(t, running, "", "claude", "--undo")
	if code != 0 || !strings.Contains(stdout, "exactly as it was") {
		t.Fatalf("setup --undo: exit %d\n%s%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "the daemon still runs as your systemd user unit; teammemd service uninstall stops and removes it\n") {
		t.Errorf("setup --undo with the service running:\n%s\nwant it to say the daemon still runs and how to remove it", stdout)
	}
	if got, _ := os.ReadFile(settings); !bytes.Equal(got, orig) {
		t.Errorf("after --undo the settings are\n%s\nwant\n%s", got, orig)
	}
	if got, _ := os.ReadFile(userConfig); gjson.GetBytes(got, "mcpServers").Exists() {
		t.Errorf("after --undo %s = %s, want no MCP server", userConfig, got)
	}
}

func TestSetupClaudeWithoutAServiceManager(t *testing.T) {
	home, bin := serviceHome(t)
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	checkout := claudetest.Checkout(t, filepath.Join(t.TempDir(), "app"), "git@github.com:acme/app.git")
	rec := &cmdRecorder{fail: map[string]bool{"systemctl --user show-environment": true}}
	stdout, stderr, code := setupCLI(t, rec, "tmd_x", "claude", "--binary", bin, "--server", "https://teammemd.example.com",
		"--token-stdin", "--checkout", checkout, "--claude", claudetest.FakeClient(t, "2.1.88", "api_key"))
	if code != 0 {
		t.Fatalf("setup claude: exit %d\n%s%s", code, stdout, stderr)
	}
	wantRun := bin + " run --config " + filepath.Join(home, ".config", "teammemd", "config.toml")
	if !strings.Contains(stdout, "route: hook") || !strings.Contains(stdout, "\n    "+wantRun+"\n") {
		t.Errorf("setup output lacks the hook route or the line %q:\n%s", wantRun, stdout)
	}
	if slicesHave(rec.calls, "systemctl --user restart teammemd.service") {
		t.Errorf("setup ran the service commands with no manager answering: %v", rec.calls)
	}
	got, _ := os.ReadFile(filepath.Join(home, ".claude", "settings.json"))
	if gjson.GetBytes(got, "env").Exists() || gjson.GetBytes(got, "hooks.SessionStart.0.hooks.0.command").String() != bin+" hook session-start" {
		t.Errorf("settings for the hook route on 2.1.88:\n%s", got)
	}
}

// The hook setup writes runs the binary by its path; Claude Code's
// settings are read back (doctor, status, setup's own report, the next
// setup) by that binary's name. A release binary's name, with its
// platform or version, is one; a name that is not teammemd's is refused
// before anything is written, rather than leaving a hook no check would
// count.
func TestSetupClaudeBinaryNames(t *testing.T) {
	home, _ := serviceHome(t)
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	checkout := claudetest.Checkout(t, filepath.Join(t.TempDir(), "app"), "git@github.com:acme/app.git")
	client := claudetest.FakeClient(t, "2.1.328", "api_key")
	settings := filepath.Join(home, ".claude", "settings.json")
	for _, tc := range []struct {
		name string
		ok   bool
	}{{"tm", false}, {"teammemd-linux-amd64", true}, {"teammemd.exe", true}} {
		bin := filepath.Join(t.TempDir(), tc.name)
		writeFile(t, bin, "#!/bin/sh\nexit 0\n", 0o755)
		before, _ := os.ReadFile(settings)
		stdout, stderr, code := setupCLI(t, &cmdRecorder{}, "tmd_x", "claude", "--binary", bin, "--server", "https://teammemd.example.com",
			"--token-stdin", "--checkout", checkout, "--claude", client, "--no-service")
		after, _ := os.ReadFile(settings)
		switch {
		case tc.ok && (code != 0 || !strings.Contains(stdout, "acme/app: Claude Code 2.1.328 loads these team notes (route: hook)")):
			t.Errorf("setup --binary %s: exit %d, want 0 and the hook counted:\n%s%s", tc.name, code, stdout, stderr)
		case !tc.ok && (code != 2 || !strings.Contains(stderr, "named teammemd")):
			t.Errorf("setup --binary %s: exit %d, want 2 asking for a binary named teammemd:\n%s%s", tc.name, code, stdout, stderr)
		case !tc.ok && !bytes.Equal(before, after):
			t.Errorf("a refused setup --binary %s changed the settings:\n%s", tc.name, after)
		}
	}
}

func TestSetupUsage(t *testing.T) {
	serviceHome(t)
	for _, args := range [][]string{{}, {"cursor"}, {"claude", "extra"}, {"claude", "--route", "mcp", "--claude", "/nonexistent/claude"}} {
		if _, _, code := setupCLI(t, &cmdRecorder{}, "", args...); code != 2 {
			t.Errorf("setup %q: exit %d, want 2", args, code)
		}
	}
	if _, stderr, code := setupCLI(t, &cmdRecorder{}, "", "claude", "--undo"); code != 1 || !strings.Contains(stderr, "nothing to undo") {
		t.Errorf("setup claude --undo with nothing set up: exit %d, %s", code, stderr)
	}
}

func slicesHave(calls [][]string, line string) bool {
	for _, c := range calls {
		if strings.Join(c, " ") == line {
			return true
		}
	}
	return false
}

// service install says when the Claude Code client on PATH will not show
// the synced notes, and that setup claude fixes it; and when the MCP
// server registered for it runs a teammemd that is gone.
func TestServiceInstallOffersSetup(t *testing.T) {
	home, bin := serviceHome(t)
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	t.Setenv("PATH", filepath.Dir(claudetest.FakeClient(t, "2.1.328", "api_key"))+":"+os.Getenv("PATH"))
	gone := filepath.Join(home, "old", "teammemd")
	writeFile(t, filepath.Join(home, ".claude.json"), `{"mcpServers":{"teammemd":`+string(route.MCPEntry(gone))+`}}`, 0o600)
	checkout := claudetest.Checkout(t, filepath.Join(t.TempDir(), "app"), "git@github.com:acme/app.git")
	stdout, stderr, code := serviceCLI(t, service.Systemd{}, &cmdRecorder{}, "tmd_x", "install", "--binary", bin,
		"--server", "https://teammemd.example.com", "--token-stdin", "--checkout", checkout)
	if code != 0 || !strings.Contains(stdout, "Claude Code 2.1.328 will not show the synced notes to the model yet") ||
		!strings.Contains(stdout, "teammemd setup claude sets it up") {
		t.Errorf("service install: exit %d\n%s%s\nwant the offer of teammemd setup claude", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "warning: Claude Code's MCP server teammemd (in "+filepath.Join(home, ".claude.json")+") runs "+gone+", which is not there") ||
		!strings.Contains(stdout, "teammemd setup claude registers it again") {
		t.Errorf("service install:\n%s\nwant a warning that the MCP server's teammemd is gone", stdout)
	}
}

// setup claude --undo --dry-run names only what undo would take out: on
// the hook route, the hook, and no env list; a settings file that is not
// JSON is said to be so.
func TestSetupUndoDryRun(t *testing.T) {
	home, bin := serviceHome(t)
	settings := filepath.Join(home, ".claude", "settings.json")
	args := hookSetupArgs(t, bin)
	if stdout, stderr, code := setupCLI(t, &cmdRecorder{}, "tmd_x", args...); code != 0 {
		t.Fatalf("setup claude: exit %d\n%s%s", code, stdout, stderr)
	}
	stdout, stderr, code := setupCLI(t, &cmdRecorder{}, "", "claude", "--undo", "--dry-run")
	want := "would take out of " + settings + ": the hook " + bin + " hook session-start\n"
	if code != 0 || !strings.Contains(stdout, want) || strings.Contains(stdout, "env") {
		t.Errorf("setup claude --undo --dry-run: exit %d, stdout %q, want %q and no env\n%s", code, stdout, want, stderr)
	}

	writeFile(t, settings, "{\"model\": \"opus\"} // mine\n", 0o644)
	_, stderr, code = setupCLI(t, &cmdRecorder{}, "tmd_x", args...)
	if code == 0 || !strings.Contains(stderr, "not valid JSON") {
		t.Errorf("setup claude over settings with a comment: exit %d, stderr %q, want a refusal saying it is not valid JSON", code, stderr)
	}
}

// setup claude --undo speaks of the daemon only when one is left: with no
// service installed (setup ran with --no-service) and no daemon on the
// control socket, nothing; with a daemon started by hand, that one, and
// not a service to uninstall.
func TestSetupUndoSaysWhatDaemonIsLeft(t *testing.T) {
	home, bin := serviceHome(t)
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	for _, name := range []string{"TEAMMEMD_TOKEN", "TEAMMEMD_TOKEN_FILE", "TEAMMEMD_SERVER"} {
		t.Setenv(name, "")
	}
	srv := servertest.Start(t)
	checkout := claudetest.Checkout(t, filepath.Join(t.TempDir(), "app"), "git@github.com:acme/app.git")
	args := []string{"claude", "--binary", bin, "--server", srv.URL, "--token-stdin", "--checkout", checkout,
		"--claude", claudetest.FakeClient(t, "2.1.88", "api_key"), "--no-service"}
	undo := func() string {
		t.Helper()
		if stdout, stderr, code := setupCLI(t, &cmdRecorder{}, srv.Token, args...); code != 0 {
			t.Fatalf("setup claude --no-service: exit %d\n%s%s", code, stdout, stderr)
		}
		stdout, stderr, code := setupCLI(t, &cmdRecorder{}, "", "claude", "--undo")
		if code != 0 || !strings.Contains(stdout, "exactly as it was") {
			t.Fatalf("setup claude --undo: exit %d\n%s%s", code, stdout, stderr)
		}
		return stdout
	}
	if out := undo(); strings.Contains(out, "daemon") || strings.Contains(out, "service uninstall") {
		t.Errorf("setup claude --undo with no service and no daemon:\n%s\nwant nothing said of a daemon", out)
	}

	config := filepath.Join(home, ".config", "teammemd", "config.toml")
	runUntilSynced(t, []string{"run", "--config", config}, daemon.SocketPath(runtimeDir()))
	out := undo()
	if !strings.Contains(out, "a daemon started by hand still runs (pid ") || strings.Contains(out, "service uninstall") {
		t.Errorf("setup claude --undo with a daemon started by hand:\n%s\nwant that daemon named, and no service to uninstall", out)
	}
}

// A Claude Code user config (.claude.json) that is not JSON stops setup
// before it writes anything: Claude Code's settings, their backup, the
// setup record, teammemd's config and token file are all left as they
// were.
func TestSetupClaudeWritesNothingOverABadUserConfig(t *testing.T) {
	home, bin := serviceHome(t)
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	checkout := claudetest.Checkout(t, filepath.Join(t.TempDir(), "app"), "git@github.com:acme/app.git")
	claudeDir := filepath.Join(home, ".claude")
	if err := os.MkdirAll(claudeDir, 0o700); err != nil {
		t.Fatal(err)
	}
	settings, userConfig := filepath.Join(claudeDir, "settings.json"), filepath.Join(home, ".claude.json")
	writeFile(t, settings, `{"model": "opus"}`, 0o600)
	writeFile(t, userConfig, `{"a":1} trailing`, 0o600)
	stdout, stderr, code := setupCLI(t, &cmdRecorder{}, "tmd_x", "claude", "--binary", bin, "--server", "https://teammemd.example.com",
		"--token-stdin", "--checkout", checkout, "--claude", claudetest.FakeClient(t, "2.1.88", "api_key"), "--no-service")
	if code == 0 || !strings.Contains(stderr, userConfig+" is not valid JSON") {
		t.Errorf("setup claude over a .claude.json that is not JSON: exit %d, stderr %q, want a refusal naming %s", code, stderr, userConfig)
	}
	if strings.Contains(stdout, "\nchanged ") || strings.Contains(stdout, "\nwrote ") {
		t.Errorf("setup claude that failed says it wrote something:\n%s", stdout)
	}
	if got, _ := os.ReadFile(settings); string(got) != `{"model": "opus"}` {
		t.Errorf("setup claude that failed left %s as\n%s\nwant it untouched", settings, got)
	}
	if entries, _ := os.ReadDir(claudeDir); len(entries) != 1 {
		t.Errorf("setup claude that failed left %d files in %s, want settings.json alone", len(entries), claudeDir)
	}
	for _, dir := range []string{filepath.Join(home, ".config", "teammemd"), filepath.Join(home, ".local", "state", "teammemd")} {
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("setup claude that failed made %s (%v)", dir, err)
		}
	}
}

// An undo of a settings file setup created, changed since, takes
// teammemd's settings out and says setup made the file, where it named an
// empty backup.
func TestSetupUndoOfACreatedFileChangedSince(t *testing.T) {
	home, bin := serviceHome(t)
	settings := filepath.Join(home, ".claude", "settings.json")
	args := hookSetupArgs(t, bin)
	if stdout, stderr, code := setupCLI(t, &cmdRecorder{}, "tmd_x", args...); code != 0 {
		t.Fatalf("setup claude: exit %d\n%s%s", code, stdout, stderr)
	}
	b, err := os.ReadFile(settings)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, settings, strings.Replace(string(b), "{", "{\"theme\": \"dark\",", 1), 0o600)
	stdout, stderr, code := setupCLI(t, &cmdRecorder{}, "", "claude", "--undo")
	if code != 0 || !strings.Contains(stdout, "setup created the file; there was none before") || strings.Contains(stdout, "before setup: )") {
		t.Errorf("setup claude --undo: exit %d\n%s%s\nwant it to say setup created the file", code, stdout, stderr)
	}
}

// setup claude --no-service with a daemon already running says to reload
// it, not to start one.
func TestSetupNoServiceWithADaemonRunning(t *testing.T) {
	_, bin := serviceHome(t)
	sock := daemon.SocketPath(runtimeDir())
	ln, err := control.Listen(sock)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- control.Serve(ctx, ln, func() any { return daemon.Status{PID: 4242, Repos: []daemon.RepoStatus{}} }, slog.New(slog.DiscardHandler))
	}()
	t.Cleanup(func() { cancel(); <-done })
	args := hookSetupArgs(t, bin)
	stdout, stderr, code := setupCLI(t, &cmdRecorder{}, "tmd_x", args...)
	if code != 0 || !strings.Contains(stdout, "a daemon already runs (pid 4242); reload it so that it reads the config: kill -HUP 4242") ||
		strings.Contains(stdout, "start the daemon with") {
		t.Errorf("setup claude --no-service with a daemon running: exit %d\n%s%s\nwant the reload named", code, stdout, stderr)
	}
}

// hookSetupArgs are the arguments of a "setup claude" on the hook route
// with bin, a fake client of a version that has it, for a new checkout of
// acme/app, and no service; CLAUDE_CONFIG_DIR is unset, so the client's
// config is under $HOME.
func hookSetupArgs(t *testing.T, bin string) []string {
	t.Helper()
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	checkout := claudetest.Checkout(t, filepath.Join(t.TempDir(), "app"), "git@github.com:acme/app.git")
	return []string{"claude", "--binary", bin, "--server", "https://teammemd.example.com", "--token-stdin", "--checkout", checkout,
		"--claude", claudetest.FakeClient(t, "2.1.88", "api_key"), "--no-service"}
}
