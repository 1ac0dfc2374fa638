package daemon

import (
	"context"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/store"
)

// A server URL that does not lead to a teammemd server stops the repo in a
// state that says so, with no retry scheduled, and logs it.
func TestWrongServerStopsRepo(t *testing.T) { bubble(t, testWrongServerStopsRepo) }

func testWrongServerStopsRepo(t *testing.T) {
	srv := startServer(t)
	fileServer := newLoopbackServer(t, http.FileServer(http.Dir(t.TempDir())))
	urls := map[string]string{"extra path": srv.URL + "/teammemd", "file server": fileServer}
	for name, url := range urls {
		dir := t.TempDir()
		write(t, dir, "MEMORY.md", "# team\n")
		logs := newLogRecorder()
		n := startNode(t, srv.Token, Plan{Specs: []Spec{{Repo: slug, Dir: dir, Server: url, Source: "test"}}}, func(o *Options) {
			o.Logger = slog.New(logs)
		})
		eventually(t, name+": repo stopped as wrong-server", func() bool {
			r, _ := n.repoStatus(dir)
			return r.State == "wrong-server"
		})
		r, _ := n.repoStatus(dir)
		if !strings.Contains(r.Halted, "does not answer as a teammemd server") || !strings.Contains(r.Halted, "check the server URL") {
			t.Errorf("%s: Halted = %q, want the reason and the hint", name, r.Halted)
		}
		if r.NextRetry != nil || r.Live {
			t.Errorf("%s: NextRetry = %v, Live = %v; want no retry and not live", name, r.NextRetry, r.Live)
		}
		if got := logs.count(msgWrongServer); got == 0 {
			t.Errorf("%s: %q logged %d times, want at least once", name, msgWrongServer, got)
		}
		n.stop(t)
	}
}

// A rejected token stops the repo as unauthorized with the server's
// message; a reload retries, and a new token in the token file resumes it.
func TestRejectedTokenStopsUntilTokenFileChanges(t *testing.T) {
	bubble(t, testRejectedTokenStopsUntilTokenFileChanges)
}

func testRejectedTokenStopsUntilTokenFileChanges(t *testing.T) {
	srv := startServer(t)
	dir := t.TempDir()
	write(t, dir, "MEMORY.md", "# team\n")
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte("tmd_wrong"), 0o600); err != nil {
		t.Fatal(err)
	}
	plan := Plan{Specs: []Spec{{Repo: slug, Dir: dir, Server: srv.URL, TokenFile: tokenFile, Source: "test"}}}
	n := startNode(t, "", plan, nil)
	eventually(t, "repo stopped as unauthorized", func() bool {
		r, _ := n.repoStatus(dir)
		return r.State == "unauthorized"
	})
	r, _ := n.repoStatus(dir)
	if !strings.Contains(r.Halted, "rejected the token") || !strings.Contains(r.Halted, "teammemd login") || r.NextRetry != nil {
		t.Errorf("Halted = %q, NextRetry = %v; want the rejection with its fix and no retry", r.Halted, r.NextRetry)
	}

	before := n.count.all.Load()
	if err := n.d.Reload(context.Background(), plan); err != nil {
		t.Fatal(err)
	}
	eventually(t, "a reload retries, and the token is rejected again", func() bool {
		r, _ := n.repoStatus(dir)
		return n.count.all.Load() > before && r.State == "unauthorized"
	})

	if err := os.WriteFile(tokenFile, []byte(srv.Token), 0o600); err != nil {
		t.Fatal(err)
	}
	eventually(t, "MEMORY.md pushed with the new token", func() bool {
		return serverEntries(t, srv)["MEMORY.md"] == "# team\n"
	})
	eventually(t, "repo idle and live", func() bool {
		r, _ := n.repoStatus(dir)
		return r.State == StateIdle && r.Live && r.Halted == ""
	})
}

// A token from the environment that the server rejects is in no file to
// change: the repo stops as unauthorized, and the reason and the log say
// where the token came from and that a restart with another fixes it,
// not a login or a token file.
func TestRejectedEnvTokenSaysRestart(t *testing.T) { bubble(t, testRejectedEnvTokenSaysRestart) }

func testRejectedEnvTokenSaysRestart(t *testing.T) {
	srv := startServer(t)
	dir := t.TempDir()
	write(t, dir, "MEMORY.md", "# team\n")
	logs := newLogRecorder()
	plan := Plan{Specs: []Spec{{Repo: slug, Dir: dir, Server: srv.URL, Source: "test", TokenEnv: "TEAMMEMD_TOKEN"}}}
	n := startNode(t, "tmd_wrong", plan, func(o *Options) { o.Logger = slog.New(logs) })
	eventually(t, "repo stopped as unauthorized", func() bool {
		r, _ := n.repoStatus(dir)
		return r.State == StateUnauthorized
	})
	r, _ := n.repoStatus(dir)
	want := "restart the daemon with a valid TEAMMEMD_TOKEN (or unset it to use the token file or teammemd login)"
	if !strings.HasPrefix(r.Halted, "the token from TEAMMEMD_TOKEN was refused (") || !strings.HasSuffix(r.Halted, want) {
		t.Errorf("Halted = %q, want the token from TEAMMEMD_TOKEN refused, and %q", r.Halted, want)
	}
	if strings.Contains(r.Halted, "token file changes") {
		t.Errorf("Halted = %q, promises a resume on a token file change", r.Halted)
	}
	if logs.count(msgUnauthorizedEnv) != 1 || logs.count(msgUnauthorized) != 0 {
		t.Errorf("logged %q %d times and %q %d times, want the first once and not the second",
			msgUnauthorizedEnv, logs.count(msgUnauthorizedEnv), msgUnauthorized, logs.count(msgUnauthorized))
	}
}

// The reason of a rejected token, or of one without access, says what to
// do for where the token came from: a file to change, or the environment
// variable the daemon must restart with.
func TestHaltCauseNamesTokenSource(t *testing.T) {
	rejected := &api.Error{Status: http.StatusUnauthorized, Code: "unauthenticated", Message: "invalid or revoked token"}
	denied := &api.Error{Status: http.StatusForbidden, Code: "forbidden", Message: "no grant"}
	gitHubDenied := &api.Error{Status: http.StatusForbidden, Code: api.CodeACLDenied,
		Message: "GitHub gives github:alice no access to this repo: ask its owners for access on GitHub"}
	file, login := Spec{TokenFile: "/t/token", CredentialFile: "/t/token"}, Spec{TokenFile: "/t/token", CredentialFile: "/t/login.json"}
	env := Spec{TokenEnv: "TEAMMEMD_TOKEN"}
	tests := []struct {
		err       error
		spec      Spec
		state     string
		want, not []string
	}{
		{rejected, Spec{}, StateUnauthorized, []string{"run teammemd login", "token file changes"}, []string{"TEAMMEMD_TOKEN"}},
		{rejected, file, StateUnauthorized, []string{"the token in /t/token was refused", "put a valid token in /t/token", "run teammemd login", "the file changes"}, []string{"TEAMMEMD_TOKEN"}},
		{rejected, login, StateUnauthorized, []string{"the token of your teammemd login (/t/login.json) was refused", "run teammemd login"}, []string{"TEAMMEMD_TOKEN", "/t/token"}},
		{rejected, env, StateUnauthorized,
			[]string{"the token from TEAMMEMD_TOKEN was refused", "restart the daemon with a valid TEAMMEMD_TOKEN"}, []string{"token file changes", "run teammemd login"}},
		{denied, Spec{}, StateDenied, []string{"no grant", "once it has, reload the config", "token file changes"}, []string{"TEAMMEMD_TOKEN"}},
		{denied, file, StateDenied, []string{"the token in /t/token has no access", "once it has, reload the config", "the file changes"}, []string{"TEAMMEMD_TOKEN"}},
		{denied, login, StateDenied, []string{"the token of your teammemd login (/t/login.json) has no access", "once it has, reload the config"}, []string{"TEAMMEMD_TOKEN"}},
		// The server's message says whom to ask; a GitHub token's access
		// is given on GitHub, never by the server's admin.
		{gitHubDenied, file, StateDenied, []string{"ask its owners for access on GitHub", "once it has, reload the config"}, []string{"server's admin"}},
		{denied, env, StateDenied,
			[]string{"the token from TEAMMEMD_TOKEN has no access", "once it has, reload the config", "restart the daemon with a TEAMMEMD_TOKEN that has one"}, []string{"token file changes"}},
	}
	for _, tt := range tests {
		state, reason, ok := haltCause(tt.err, tt.spec)
		if !ok || state != tt.state {
			t.Errorf("haltCause(%v, %+v) = %q, %v; want %q", tt.err, tt.spec, state, ok, tt.state)
		}
		for _, w := range tt.want {
			if !strings.Contains(reason, w) {
				t.Errorf("haltCause(%v, %+v) reason = %q, want it to say %q", tt.err, tt.spec, reason, w)
			}
		}
		for _, n := range tt.not {
			if strings.Contains(reason, n) {
				t.Errorf("haltCause(%v, %+v) reason = %q, want it not to say %q", tt.err, tt.spec, reason, n)
			}
		}
	}
}

// A read-only token stops the pushes; a token that may write, put in the
// token file, resumes them within a credential check, without a reload,
// as a new token does for a repo the server denied.
func TestReadOnlyTokenFileReplacedResumesPushes(t *testing.T) {
	bubble(t, testReadOnlyTokenFileReplacedResumesPushes)
}

func testReadOnlyTokenFileReplacedResumesPushes(t *testing.T) {
	srv := startServer(t)
	readOnly := srv.CreateToken(t, "reader", store.Grant{Pattern: "acme/**", Level: store.LevelRead})
	dir := t.TempDir()
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte(readOnly), 0o600); err != nil {
		t.Fatal(err)
	}
	n := startNode(t, "", Plan{Specs: []Spec{{Repo: slug, Dir: dir, Server: srv.URL, TokenFile: tokenFile, Source: "test"}}}, nil)
	write(t, dir, "a.md", "a\n")
	n.settles(t, dir, "pushes stopped", func(r RepoStatus) bool { return r.State == StateStopped })

	if err := os.WriteFile(tokenFile, []byte(srv.Token), 0o600); err != nil {
		t.Fatal(err)
	}
	eventually(t, "a.md pushed with the new token", func() bool {
		return serverEntries(t, srv)["a.md"] == "a\n"
	})
	n.settles(t, dir, "repo idle", func(r RepoStatus) bool { return r.State == StateIdle && r.Suppressed == "" })
}
