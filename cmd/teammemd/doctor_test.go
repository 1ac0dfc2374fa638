package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/auth"
	"github.com/teammemd/teammemd/server/auth/authtest"
	"github.com/teammemd/teammemd/server/servertest"
	"github.com/teammemd/teammemd/server/store"
	"github.com/teammemd/teammemd/sync/claude/claudetest"
	"github.com/teammemd/teammemd/sync/claude/route"
	"github.com/teammemd/teammemd/sync/daemon"
	"github.com/teammemd/teammemd/sync/login"
)

// doctorCase is the machine the doctor examines: a real server, a git
// checkout, a config naming both and a token file, each of which a case
// may spoil.
type doctorCase struct {
	srv       *servertest.Server
	checkout  string
	team      string
	tokenFile string
	server    string
	extra     string // more config text
	claude    string // --claude, when set
	env       doctorEnv
	config    string // the config file, once written
	sock      string // the daemon's control socket
}

// configText is the case's config.
func (c *doctorCase) configText() string {
	cfg := fmt.Sprintf("[client]\nserver = %q\ntoken_file = %q\n\n[[daemon.repo]]\ncheckout = %q\n%s", c.server, c.tokenFile, c.checkout, c.extra)
	if c.server == "" {
		cfg = strings.Replace(cfg, "server = \"\"\n", "", 1)
	}
	if c.tokenFile == "" {
		cfg = strings.Replace(cfg, "token_file = \"\"\n", "", 1)
	}
	return cfg
}

// configFile writes the config text once and returns its path.
func (c *doctorCase) configFile(t *testing.T, text string) string {
	t.Helper()
	if c.config == "" {
		c.config = writeConfig(t, text)
	}
	return c.config
}

// socket is the control socket doctor asks the daemon on.
func (c *doctorCase) socket(t *testing.T) string {
	if c.sock == "" {
		c.sock = filepath.Join(t.TempDir(), "daemon.sock")
	}
	return c.sock
}

// startDaemon runs "teammemd run" on the case's config until the test
// ends, and waits until it answers on its control socket.
func (c *doctorCase) startDaemon(t *testing.T) {
	t.Helper()
	cfg := c.configText()
	args := []string{"run", "--config", c.configFile(t, cfg), "--socket", c.socket(t)}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, args, io.Discard, io.Discard)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	wait, stop := context.WithTimeout(ctx, time.Minute)
	defer stop()
	for {
		if _, err := daemon.FetchStatus(wait, c.socket(t)); err == nil {
			return
		}
		select {
		case err := <-done:
			t.Fatalf("teammemd run ended: %v", err)
		case <-wait.Done():
			t.Fatal("teammemd run did not answer on its control socket within a minute")
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func newDoctorCase(t *testing.T) *doctorCase {
	t.Helper()
	for _, name := range []string{"TEAMMEMD_TOKEN", "TEAMMEMD_SERVER", "TEAMMEMD_TOKEN_FILE", "TEAMMEMD_CONFIG", "TEAMMEMD_STATE_DIR"} {
		t.Setenv(name, "")
	}
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Chdir(t.TempDir())
	c := &doctorCase{srv: servertest.Start(t)}
	c.checkout, c.team = gitCheckout(t)
	c.server = c.srv.URL
	c.tokenFile = filepath.Join(t.TempDir(), "token")
	writeFile(t, c.tokenFile, c.srv.Token+"\n", 0o600)
	proc := t.TempDir()
	writeFile(t, filepath.Join(proc, "max_user_watches"), "524288\n", 0o644)
	writeFile(t, filepath.Join(proc, "max_user_instances"), "1024\n", 0o644)
	c.env = doctorEnv{now: time.Now, inotifyDir: proc}
	return c
}

func writeFile(t *testing.T, path, data string, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

// run writes the config and runs the doctor on it.
func (c *doctorCase) run(t *testing.T) (stdout string, code int) {
	t.Helper()
	cfg := c.configText()
	var out, errOut bytes.Buffer
	ctx := context.Background()
	args := []string{"--config", c.configFile(t, cfg), "--socket", c.socket(t)}
	if c.claude != "" {
		args = append(args, "--claude", c.claude)
	}
	err := runDoctorWith(ctx, c.env, args, &out, &errOut)
	return out.String(), exitCode(ctx, err, &errOut)
}

// fakeTeammemd is an executable named teammemd, for a hook in Claude
// Code's settings to run.
func fakeTeammemd(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "teammemd")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin
}

// hookSettings is Claude Code's settings with a SessionStart hook that
// runs bin.
func hookSettings(bin string) string {
	return `{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"` + bin + ` hook session-start"}]}]}}`
}

// On a machine where all is well every check passes, one line each.
func TestDoctorHealthy(t *testing.T) {
	c := newDoctorCase(t)
	c.claude = claudetest.FakeClient(t, "2.1.328", "api_key")
	writeClaudeSettings(t, hookSettings(fakeTeammemd(t)))
	c.startDaemon(t)
	out, code := c.run(t)
	if code != 0 {
		t.Errorf("doctor on a healthy setup exit %d, want 0:\n%s", code, out)
	}
	for _, name := range []string{"config", "server", "token", "reachable", "teammemd", "auth", "repo", "team dir", "agent", "daemon", "inotify", "clock"} {
		if !strings.Contains(out, fmt.Sprintf("ok    %-9s ", name)) {
			t.Errorf("doctor output lacks an ok line for %s:\n%s", name, out)
		}
	}
	if strings.Contains(out, "FAIL") || strings.Contains(out, "skip") || strings.Contains(out, c.srv.Token) {
		t.Errorf("doctor on a healthy setup:\n%s\nwant every check ok and the token never shown", out)
	}
}

// Each thing that can be wrong fails its own check, with a fix, and the
// doctor exits 1.
func TestDoctorFindsEachProblem(t *testing.T) {
	tests := []struct {
		name, check, fix string
		spoil            func(t *testing.T, c *doctorCase)
	}{
		{"bad config", "config", "configs/daemon.toml", func(t *testing.T, c *doctorCase) { c.extra = "[daemon]\nrescan = 300\n" }},
		{"no server", "server", "pass --server URL", func(t *testing.T, c *doctorCase) { c.server = "" }},
		{"plain http beyond loopback", "server", "allow_insecure = true", func(t *testing.T, c *doctorCase) {
			c.server = "http://teammemd.invalid:8787"
		}},
		{"no token", "token", "--token-file", func(t *testing.T, c *doctorCase) { c.tokenFile = "" }},
		{"token readable by others", "token", "chmod 600", func(t *testing.T, c *doctorCase) {
			if err := os.Chmod(c.tokenFile, 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{"token of two lines", "token", "fix: keep only the token in ", func(t *testing.T, c *doctorCase) {
			writeFile(t, c.tokenFile, c.srv.Token+"\n# comment\n", 0o600)
		}},
		{"server down", "reachable", "start the server", func(t *testing.T, c *doctorCase) { c.server = closedPortURL(t) }},
		{"untrusted certificate", "reachable", "not trusted", func(t *testing.T, c *doctorCase) {
			dir := t.TempDir()
			testCert(t, filepath.Join(dir, "c.pem"), filepath.Join(dir, "k.pem"))
			addr, _, stop := serveInProcess(t, "--data", t.TempDir(), "--tls-cert", filepath.Join(dir, "c.pem"), "--tls-key", filepath.Join(dir, "k.pem"))
			t.Cleanup(stop)
			c.server = "https://" + addr
		}},
		{"another web server", "teammemd", "base URL", func(t *testing.T, c *doctorCase) {
			c.server = anotherWebServer(t)
		}},
		{"revoked token", "auth", "ask the server's admin for a new one", func(t *testing.T, c *doctorCase) {
			writeFile(t, c.tokenFile, "tmd_not_a_token\n", 0o600)
		}},
		{"no grant", "repo", "covers acme/app", func(t *testing.T, c *doctorCase) {
			tok := c.srv.CreateToken(t, "bob", store.Grant{Pattern: "other/**", Level: store.LevelWrite})
			writeFile(t, c.tokenFile, tok+"\n", 0o600)
		}},
		{"refused login", "auth", "log in again: teammemd login --server", func(t *testing.T, c *doctorCase) {
			saveDoctorLogin(t, c, "tmd_not_a_token")
		}},
		{"login without a grant", "repo", "a grant that covers acme/app ([[server.auth.grants]]), or run teammemd login as someone", func(t *testing.T, c *doctorCase) {
			saveDoctorLogin(t, c, c.srv.CreateToken(t, "bob", store.Grant{Pattern: "other/**", Level: store.LevelWrite}))
		}},
		{"GitHub token without access", "repo", "ask the repo's owners on GitHub for access", func(t *testing.T, c *doctorCase) {
			gh := authtest.NewGitHub(t)
			gh.AddUser("ghp_none", "none")
			cfg := auth.Config{GitHub: auth.GitHubConfig{Enabled: true, APIURL: gh.URL, RepoHost: auth.GitHubHost, CacheTTL: time.Minute}}
			c.srv.RestartWith(t, servertest.WithAuth(cfg, auth.Options{HTTPClient: authtest.Client(t)}))
			writeFile(t, c.tokenFile, "ghp_none\n", 0o600)
		}},
		{"GitHub token refused", "auth", "put a valid GitHub token in the token file", func(t *testing.T, c *doctorCase) {
			writeFile(t, c.tokenFile, "ghp_revoked\n", 0o600)
		}},
		{"not a checkout", "repo", "git checkout with a remote", func(t *testing.T, c *doctorCase) {
			c.extra = fmt.Sprintf("\n[[daemon.repo]]\ncheckout = %q\n", t.TempDir())
		}},
		{"team dir writable by all", "team dir", "chmod go-w", func(t *testing.T, c *doctorCase) {
			if err := os.Chmod(c.team, 0o777); err != nil {
				t.Fatal(err)
			}
		}},
		{"team dir a file", "team dir", "must be a directory", func(t *testing.T, c *doctorCase) {
			if err := os.Remove(c.team); err != nil {
				t.Fatal(err)
			}
			writeFile(t, c.team, "", 0o600)
		}},
		{"team dir gone after a sync", "team dir", "mkdir -p", func(t *testing.T, c *doctorCase) {
			t.Setenv("TEAMMEMD_STATE_DIR", t.TempDir())
			writeFile(t, filepath.Join(c.team, "n.md"), "a note\n", 0o600)
			if out, errOut, code := runCLI(t, "sync", "--dir", c.team, "--repo", "acme/app", "--server", c.server,
				"--token-file", c.tokenFile, "--config", writeConfig(t, "")); code != 0 {
				t.Fatalf("sync: exit %d\n%s%s", code, out, errOut)
			}
			if err := os.Rename(c.team, c.team+".bak"); err != nil {
				t.Fatal(err)
			}
		}},
		{"few inotify watches", "inotify", "fs.inotify.max_user_watches=524288", func(t *testing.T, c *doctorCase) {
			writeFile(t, filepath.Join(c.env.inotifyDir, "max_user_watches"), "100\n", 0o644)
		}},
		{"few inotify instances", "inotify", "fs.inotify.max_user_instances=1024", func(t *testing.T, c *doctorCase) {
			writeFile(t, filepath.Join(c.env.inotifyDir, "max_user_instances"), "2\n", 0o644)
		}},
		{"clock off", "clock", "timedatectl set-ntp true", func(t *testing.T, c *doctorCase) {
			c.env.now = func() time.Time { return time.Now().Add(10 * time.Minute) }
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newDoctorCase(t)
			tt.spoil(t, c)
			out, code := c.run(t)
			line := failLine(out, tt.check)
			if code != 1 || line == "" || !strings.Contains(line, "; fix: ") || !strings.Contains(line, tt.fix) {
				t.Errorf("doctor with %s: exit %d, want 1 and a FAIL %s line with a fix naming %q:\n%s", tt.name, code, tt.check, tt.fix, out)
			}
		})
	}
}

// saveDoctorLogin makes a teammemd login to the case's server, sending
// bearer, its only credential.
func saveDoctorLogin(t *testing.T, c *doctorCase, bearer string) {
	t.Helper()
	rec := login.Record{Server: c.srv.URL, AccessToken: bearer, Expiry: time.Now().Add(time.Hour)}
	if err := loginStore("").Save(rec); err != nil {
		t.Fatal(err)
	}
	c.tokenFile = ""
}

// failLine returns the FAIL line of check in out, "" when there is none.
func failLine(out, check string) string {
	if line := checkLine(out, check); strings.HasPrefix(line, checkFail+"  ") {
		return line
	}
	return ""
}

// anotherWebServer is the URL of a web server that is not teammemd: it
// answers every request 404 with a page.
func anotherWebServer(t *testing.T) string {
	t.Helper()
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, "<html>404 Not Found</html>")
	}))
	t.Cleanup(other.Close)
	return other.URL
}

// closedPortURL is the URL of a loopback port nothing listens on.
func closedPortURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr
}

// A login from teammemd login is a token source of its own: the doctor
// names it and the server accepts its token.
func TestDoctorWithLogin(t *testing.T) {
	c := newDoctorCase(t)
	rec := login.Record{Server: c.srv.URL, AccessToken: c.srv.Token, Expiry: time.Now().Add(time.Hour)}
	if err := loginStore("").Save(rec); err != nil {
		t.Fatal(err)
	}
	c.tokenFile = ""
	c.startDaemon(t)
	out, code := c.run(t)
	if code != 0 || !strings.Contains(out, "ok    token          the login to "+c.srv.URL) || !strings.Contains(out, "ok    auth ") {
		t.Errorf("doctor with a login: exit %d, want 0 and the login named as the token:\n%s", code, out)
	}
}

// writeClaudeSettings writes Claude Code's user settings in the config
// directory the test's $CLAUDE_CONFIG_DIR names.
func writeClaudeSettings(t *testing.T, data string) {
	t.Helper()
	writeFile(t, filepath.Join(os.Getenv("CLAUDE_CONFIG_DIR"), "settings.json"), data, 0o600)
}

// Doctor says whether Claude Code shows the team's notes to the model: not
// before setup on a current client, naming the fix; by which route after;
// and a failure where the client itself would upload the notes.
func TestDoctorClaudeCode(t *testing.T) {
	stores := `{"env":{"CLAUDE_MEMORY_STORES":` + strconv.Quote(route.StoresValue) + `}}`
	bin := fakeTeammemd(t)
	moved := filepath.Join(filepath.Dir(bin), "moved", "teammemd")
	for _, tc := range []struct {
		name, version, login, settings, mcp string
		code                                int
		want                                string
	}{
		{"before setup", "2.1.328", "api_key", "", "", 1,
			"FAIL  agent          acme/app: Claude Code 2.1.328 will not show these team notes to the model: Claude Code 2.1.328 reads a team directory only through CLAUDE_MEMORY_STORES or a hook, and neither is set, so the model never sees team notes; fix: teammemd setup claude"},
		{"hook route", "2.1.332", "api_key", hookSettings(bin), "", 1,
			"ok    agent          acme/app: Claude Code 2.1.332 loads these team notes (route: hook)"},
		{"hook's binary gone", "2.1.332", "api_key", hookSettings(moved), "", 1,
			"FAIL  agent          acme/app: Claude Code 2.1.332 will not show these team notes to the model: its SessionStart hook runs " +
				moved + ", which is not there (moved or deleted)"},
		{"stores uploading", "2.1.328", "claude.ai", stores, "", 1, "syncs its memory stores, team notes included, with Anthropic's host"},
		{"old client", "2.1.88", "api_key", "", "", 1, "no teammemd hook is set; fix: teammemd setup claude"},
		{"MCP server there", "2.1.332", "api_key", hookSettings(bin), string(route.MCPEntry(bin)), 1,
			"ok    agent          acme/app: Claude Code 2.1.332 loads these team notes (route: hook)\n"},
		{"MCP server's binary gone", "2.1.332", "api_key", hookSettings(bin), string(route.MCPEntry(moved)), 1,
			"FAIL  agent          acme/app: Claude Code 2.1.332 loads these team notes (route: hook); Claude Code's MCP server teammemd (in " +
				filepath.Join("CONFIG", ".claude.json") + ") runs " + moved + ", which is not there (moved or deleted), so it cannot start and the agent has no teammemd tools; " +
				"fix: teammemd setup claude (with the teammemd you use now)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newDoctorCase(t)
			c.claude = claudetest.FakeClient(t, tc.version, tc.login)
			if tc.settings != "" {
				writeClaudeSettings(t, tc.settings)
			}
			if tc.mcp != "" {
				writeFile(t, filepath.Join(os.Getenv("CLAUDE_CONFIG_DIR"), ".claude.json"), `{"mcpServers":{"teammemd":`+tc.mcp+`}}`, 0o600)
			}
			tc.want = strings.ReplaceAll(tc.want, "CONFIG", os.Getenv("CLAUDE_CONFIG_DIR"))
			out, code := c.run(t)
			if (code == 0) != (tc.code == 0) || !strings.Contains(out, tc.want) {
				t.Errorf("doctor: exit %d, want %d, and a line with %q:\n%s", code, tc.code, tc.want, out)
			}
		})
	}
}

// With no daemon answering, doctor fails its daemon line and says how to
// start one, however healthy the rest.
func TestDoctorNoDaemon(t *testing.T) {
	c := newDoctorCase(t)
	out, code := c.run(t)
	if code != 1 || !strings.Contains(out, "FAIL  daemon         no daemon answers on "+c.socket(t)) || !strings.Contains(out, "teammemd service install") {
		t.Errorf("doctor with no daemon: exit %d\n%s\nwant exit 1 and a failed daemon line", code, out)
	}
}

// Against a web server that is not teammemd, doctor does not claim the
// token may read the repo.
func TestDoctorRepoAgainstAnotherServer(t *testing.T) {
	c := newDoctorCase(t)
	c.server = anotherWebServer(t)
	out, _ := c.run(t)
	if line := checkLine(out, "repo"); strings.Contains(line, "may read it") || !strings.Contains(line, "not checked") {
		t.Errorf("doctor against another web server: repo line %q, want access not checked\n%s", line, out)
	}
}

// checkLine returns the output line of check, whatever its outcome.
func checkLine(out, check string) string {
	for _, line := range strings.Split(out, "\n") {
		if len(line) > 6 && strings.HasPrefix(line[6:], fmt.Sprintf("%-9s ", check)) {
			return line
		}
	}
	return ""
}

// A repo whose own server (its [[daemon.repo]] server) leads to something
// other than a teammemd server fails its repo line, as the [client]
// server's would, where doctor took that server's 404 for a repo not yet
// written and said the token may read it.
func TestDoctorRepoWithItsOwnWrongServer(t *testing.T) {
	c := newDoctorCase(t)
	dir := t.TempDir()
	c.extra = fmt.Sprintf("\n[[daemon.repo]]\ndir = %q\nrepo = \"acme/web\"\nserver = %q\n", dir, c.srv.URL+"/teammemd")
	out, code := c.run(t)
	want := "FAIL  repo           acme/web in " + dir + " (config dir " + dir + "): " + c.srv.URL + "/teammemd is not a teammemd server"
	if code != 1 || !strings.Contains(out, want) {
		t.Errorf("doctor: exit %d, want 1 and a line starting %q:\n%s", code, want, out)
	}
	if line := checkLine(out, "repo"); !strings.Contains(line, "the token may read it") {
		t.Errorf("doctor's line for the repo on the [client] server = %q, want its access checked", line)
	}
}

// A Claude Code user config (.claude.json) that is not JSON fails the
// agent line with the fix of that file, which setup would refuse too,
// before anything else.
func TestDoctorUserConfigNotJSON(t *testing.T) {
	for _, tc := range []struct {
		name, settings, fix string
	}{
		{"hook set", hookSettings(fakeTeammemd(t)), "fix: fix the JSON in CONFIG\n"},
		{"nothing set", "", "fix: fix the JSON in CONFIG; then teammemd setup claude\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newDoctorCase(t)
			c.claude = claudetest.FakeClient(t, "2.1.332", "api_key")
			if tc.settings != "" {
				writeClaudeSettings(t, tc.settings)
			}
			config := filepath.Join(os.Getenv("CLAUDE_CONFIG_DIR"), ".claude.json")
			writeFile(t, config, `{"a":1} trailing`, 0o600)
			out, code := c.run(t)
			line := checkLine(out, "agent")
			want := strings.ReplaceAll(tc.fix, "CONFIG", config)
			if code != 1 || !strings.Contains(line+"\n", want) || !strings.Contains(line, config+" is not valid JSON (") || !strings.Contains(line, "it may hold no comments") {
				t.Errorf("doctor with %s not JSON: exit %d, agent line\n%s\nwant exit 1 and a line saying so that ends %q", config, code, line, want)
			}
		})
	}
}

// A repo the running daemon skipped (it found no token where the doctor,
// in another environment, finds one) fails the daemon check with the
// daemon's reason: the daemon syncs nothing for it.
func TestDoctorReportsReposTheDaemonSkipped(t *testing.T) {
	srv := servertest.Start(t)
	isolateConfig(t)
	t.Setenv("HOME", t.TempDir())
	t.Setenv("TEAMMEMD_TOKEN", "")
	t.Setenv("TEAMMEMD_TOKEN_FILE", "")
	t.Setenv("TEAMMEMD_SERVER", "")
	cfg := writeConfig(t, fmt.Sprintf("[client]\nserver = %q\n[[daemon.repo]]\ndir = %q\nrepo = \"acme/app\"\n", srv.URL, t.TempDir()))
	ctx := context.Background()
	d := runInBackground(t, cfg, "skipping repo")
	sock := d.sock
	awaitStatus(t, sock, func(out string) bool { return strings.Contains(out, "skipped ") })

	t.Setenv("TEAMMEMD_TOKEN", srv.Token)
	var doc bytes.Buffer
	_ = runDoctorWith(ctx, realDoctorEnv(), []string{"--config", cfg, "--socket", sock}, &doc, &bytes.Buffer{})
	if want := "FAIL  daemon         config dir "; !strings.Contains(doc.String(), want) || !strings.Contains(doc.String(), "no API token") {
		t.Errorf("teammemd doctor with a daemon that skipped its repo has no line %q naming the daemon's reason:\n%s", want, doc.String())
	}
	d.stop(t)
}
