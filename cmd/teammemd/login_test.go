package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/teammemd/teammemd/internal/lockedbuf"
	"github.com/teammemd/teammemd/server/auth"
	"github.com/teammemd/teammemd/server/auth/authtest"
	"github.com/teammemd/teammemd/server/servertest"
	"github.com/teammemd/teammemd/server/store"
	"github.com/teammemd/teammemd/sync/daemon"
	"github.com/teammemd/teammemd/sync/login"
	"github.com/teammemd/teammemd/sync/login/logintest"
)

// loginWorld is a fake identity provider, a teammemd server that accepts
// its logins, and the person who approves the next device login.
type loginWorld struct {
	clock *authtest.Clock
	idp   *authtest.IdP
	srv   *servertest.Server

	mu   sync.Mutex
	next authtest.User
}

func newLoginWorld(t *testing.T) *loginWorld {
	t.Helper()
	isolateConfig(t)
	t.Setenv(envToken, "")
	t.Setenv(envTokenFile, "")
	t.Setenv(envServer, "")
	t.Setenv(envLoginStorage, string(login.StorageFile)) // the keyring tests opt in
	w := &loginWorld{clock: authtest.NewClock()}
	old := loginClock
	loginClock = w.clock.Now
	t.Cleanup(func() { loginClock = old })
	w.idp = authtest.NewIdP(t, w.clock)
	w.idp.OnDeviceCode = func(code string) {
		w.mu.Lock()
		u := w.next
		w.mu.Unlock()
		if err := w.idp.Approve(code, u); err != nil {
			t.Error(err)
		}
	}
	cfg := auth.Config{
		OIDC:   auth.OIDCConfig{Enabled: true, Issuer: w.idp.URL, ClientID: w.idp.ClientID},
		Grants: []auth.GrantRule{{Subject: "group:eng", Repos: []string{"acme/**"}, Level: store.LevelWrite}},
	}
	w.srv = servertest.Start(t, servertest.WithAuth(cfg, auth.Options{HTTPClient: authtest.Client(t), Now: w.clock.Now}))
	for _, u := range []string{w.idp.URL, w.srv.URL} {
		if !strings.HasPrefix(u, "http://127.0.0.1:") {
			t.Fatalf("%s is not a loopback fake", u)
		}
	}
	return w
}

// login runs "teammemd login" as u.
func (w *loginWorld) login(t *testing.T, u authtest.User) string {
	t.Helper()
	w.mu.Lock()
	w.next = u
	w.mu.Unlock()
	stdout, stderr, code := runCLI(t, "login", "--server", w.srv.URL)
	if code != 0 {
		t.Fatalf("teammemd login exit %d: %s", code, stderr)
	}
	return stdout
}

// subjectOf is who wrote the newest revision of key in acme/app.
func (w *loginWorld) subjectOf(t *testing.T, key string) string {
	t.Helper()
	revs, err := store.ListHistory(context.Background(), w.srv.Store, store.HistoryQuery{Repo: "acme/app", Key: key, Limit: 1})
	if err != nil || len(revs) == 0 {
		return ""
	}
	return revs[0].Subject
}

var (
	alice = authtest.User{Sub: "u-alice", Email: "alice@acme.com", EmailVerified: true, Groups: []string{"eng"}}
	bob   = authtest.User{Sub: "u-bob", Email: "bob@acme.com", EmailVerified: true, Groups: []string{"eng"}}
)

// TestDeviceLoginThenSync logs in with the device grant, syncs with the
// login, syncs again after the login expired (it is refreshed), fails with
// a clear message once the provider revoked it, and logs out.
func TestDeviceLoginThenSync(t *testing.T) {
	testDeviceLoginThenSync(t, newLoginWorld(t), nil)
}

// TestDeviceLoginThenSyncKeyring is TestDeviceLoginThenSync with the
// login kept in the OS keyring: its file never holds a token.
func TestDeviceLoginThenSyncKeyring(t *testing.T) {
	logintest.Keyring(t)
	w := newLoginWorld(t)
	t.Setenv(envLoginStorage, string(login.StorageKeyring))
	t.Cleanup(func() { loginStore("").Remove(context.Background(), w.srv.URL) })
	testDeviceLoginThenSync(t, w, func(when string) {
		path, _ := loginPath(w.srv.URL)
		data, err := os.ReadFile(path)
		var rec login.Record
		if err == nil {
			err = json.Unmarshal(data, &rec)
		}
		if err != nil || !rec.InKeyring || rec.AccessToken+rec.IDToken+rec.RefreshToken != "" {
			t.Errorf("login file %s: %v\n%s\nwant it to name the keyring and hold no token", when, err, data)
		}
	})
}

// testDeviceLoginThenSync runs the login's life in w; inKeyring, when
// not nil, checks the login file after the login and after a refresh.
func testDeviceLoginThenSync(t *testing.T, w *loginWorld, inKeyring func(when string)) {
	out := w.login(t, alice)
	if !strings.Contains(out, "enter the code") || !strings.Contains(out, "Logged in to "+w.srv.URL+" as alice@acme.com") {
		t.Errorf("teammemd login printed %q, want the code and who logged in", out)
	}
	path, _ := loginPath(w.srv.URL)
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("login file %s: %v, want mode 0600", path, err)
	}
	if inKeyring != nil {
		inKeyring("after the login")
	}
	team, state := t.TempDir(), t.TempDir()
	sync := func(file string) (string, int) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(team, file), []byte("# "+file+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		stdout, stderr, code := runCLI(t, "sync", "--dir", team, "--repo", "acme/app", "--server", w.srv.URL, "--state-dir", state)
		return stdout + stderr, code
	}
	if out, code := sync("a.md"); code != 0 || w.subjectOf(t, "a.md") != "oidc:alice@acme.com" {
		t.Fatalf("sync after login exit %d (%s), a.md written by %q, want 0 and oidc:alice@acme.com", code, out, w.subjectOf(t, "a.md"))
	}

	before, _ := os.ReadFile(path)
	w.clock.Advance(2 * time.Hour) // past the token's expiry
	if out, code := sync("b.md"); code != 0 || w.subjectOf(t, "b.md") != "oidc:alice@acme.com" {
		t.Fatalf("sync after the token expired exit %d (%s), want 0: the login is refreshed", code, out)
	}
	if after, _ := os.ReadFile(path); bytes.Equal(before, after) {
		t.Error("the login file did not change after a refresh")
	}
	if inKeyring != nil {
		inKeyring("after a refresh")
	}

	w.idp.RevokeAll()
	w.clock.Advance(2 * time.Hour)
	if out, code := sync("c.md"); code != 1 || !strings.Contains(out, "run teammemd login --server "+w.srv.URL) {
		t.Errorf("sync with a revoked login exit %d, output %q, want 1 and a hint to log in again", code, out)
	}

	w.login(t, alice)
	refresh := w.idp.RefreshTokens()
	if stdout, _, code := runCLI(t, "logout", "--server", w.srv.URL); code != 0 || !strings.Contains(stdout, "Logged out") {
		t.Errorf("teammemd logout exit %d: %s", code, stdout)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) || w.idp.RefreshTokens() != refresh-1 {
		t.Errorf("after logout: login file %v, refresh tokens %d, want the file gone and the refresh token revoked (%d)", err, w.idp.RefreshTokens(), refresh-1)
	}
	if out, code := sync("d.md"); code != 1 || !strings.Contains(out, "no API token: run teammemd login") {
		t.Errorf("sync after logout exit %d, output %q, want 1 and a hint to log in", code, out)
	}
}

// TestLoginNamesWhomTheServerKnows: a login whose email the provider does
// not vouch for is named as the server knows it, by its subject id, with
// why, never as the email that no email grant matches.
func TestLoginNamesWhomTheServerKnows(t *testing.T) {
	w := newLoginWorld(t)
	carol := authtest.User{Sub: "u-carol", Email: "carol@acme.com", Groups: []string{"eng"}}
	out := w.login(t, carol)
	if !strings.Contains(out, "Logged in to "+w.srv.URL+" as u-carol") || !strings.Contains(out, "carol@acme.com (email_verified)") {
		t.Errorf("teammemd login printed %q, want it to name u-carol and say the email is not vouched for", out)
	}
	team := t.TempDir()
	if err := os.WriteFile(filepath.Join(team, "a.md"), []byte("# a\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := runCLI(t, "sync", "--dir", team, "--repo", "acme/app", "--server", w.srv.URL, "--state-dir", t.TempDir()); code != 0 {
		t.Fatalf("sync exit %d: %s", code, stderr)
	}
	if got := w.subjectOf(t, "a.md"); got != "oidc:u-carol" {
		t.Errorf("a.md written by %q, want oidc:u-carol, as login named it", got)
	}
}

// TestSyncNoGrantSaysOnce: a login without a grant is told what to do
// once, as the server says it, with no second, generic hint after it.
func TestSyncNoGrantSaysOnce(t *testing.T) {
	w := newLoginWorld(t)
	w.login(t, authtest.User{Sub: "u-dan", Email: "dan@acme.com", EmailVerified: true})
	_, stderr, code := runCLI(t, "sync", "--dir", t.TempDir(), "--repo", "acme/app", "--server", w.srv.URL, "--state-dir", t.TempDir())
	if code == 0 || !strings.Contains(stderr, "oidc:dan@acme.com has no grant on this repo") || strings.Count(stderr, "ask the server's admin") != 1 {
		t.Errorf("sync without a grant exit %d, stderr %q, want a failure saying once to ask the server's admin", code, stderr)
	}
}

// TestSyncRefreshWithoutIDToken syncs with a login whose provider answers
// refreshes without an ID token (OpenID Connect allows it): while the last
// ID token is good it is sent, never the opaque access token the server
// cannot verify; once it has expired, sync says to log in again.
func TestSyncRefreshWithoutIDToken(t *testing.T) {
	w := newLoginWorld(t)
	w.idp.RefreshWithoutIDToken = true
	w.login(t, alice)
	team, state := t.TempDir(), t.TempDir()
	sync := func(file string) (string, int) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(team, file), []byte("# "+file+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		stdout, stderr, code := runCLI(t, "sync", "--dir", team, "--repo", "acme/app", "--server", w.srv.URL, "--state-dir", state)
		return stdout + stderr, code
	}
	w.clock.Advance(time.Hour - login.RefreshBefore/2) // due for a refresh, the ID token still good
	if out, code := sync("a.md"); code != 0 || w.subjectOf(t, "a.md") != "oidc:alice@acme.com" {
		t.Errorf("sync after a refresh without an ID token exit %d (%s), a.md by %q, want 0 and alice", code, out, w.subjectOf(t, "a.md"))
	}
	w.clock.Advance(time.Hour)
	out, code := sync("b.md")
	if want := "log in again: run teammemd login --server " + w.srv.URL; code != 1 || !strings.Contains(out, want) || regexp.MustCompile(`\b401\b`).MatchString(out) {
		t.Errorf("sync once the ID token expired exit %d, output %q, want 1 and %q, not a refusal by the server", code, out, want)
	}
}

// TestDaemonPicksUpNewLogin logs in anew while the daemon runs: its next
// push is made with the new login, without a restart.
func TestDaemonPicksUpNewLogin(t *testing.T) {
	testDaemonPicksUpNewLogin(t, newLoginWorld(t))
}

// TestDaemonPicksUpNewLoginKeyring is TestDaemonPicksUpNewLogin with the
// logins kept in the OS keyring.
func TestDaemonPicksUpNewLoginKeyring(t *testing.T) {
	logintest.Keyring(t)
	w := newLoginWorld(t)
	t.Setenv(envLoginStorage, string(login.StorageKeyring))
	t.Cleanup(func() { loginStore("").Remove(context.Background(), w.srv.URL) })
	testDaemonPicksUpNewLogin(t, w)
}

func testDaemonPicksUpNewLogin(t *testing.T, w *loginWorld) {
	w.login(t, alice)
	cfg := writeConfig(t, "[daemon]\ndebounce = \"100ms\"\nmax_wait = \"200ms\"\n")
	team := t.TempDir()
	args := []string{"--dir", team, "--repo", "acme/app", "--server", w.srv.URL, "--config", cfg,
		"--state-dir", t.TempDir(), "--socket", filepath.Join(t.TempDir(), "ctl.sock")}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stderr lockedbuf.Buffer
	done := make(chan error, 1)
	go func() { done <- runDaemon(ctx, args, &bytes.Buffer{}, &stderr) }()

	pushedBy := func(file string) string {
		t.Helper()
		if err := os.WriteFile(filepath.Join(team, file), []byte("# "+file+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(30 * time.Second)
		for time.Now().Before(deadline) {
			if s := w.subjectOf(t, file); s != "" {
				return s
			}
			time.Sleep(20 * time.Millisecond)
		}
		t.Fatalf("%s not on the server after 30s\n%s", file, stderr.String())
		return ""
	}
	if got := pushedBy("a.md"); got != "oidc:alice@acme.com" {
		t.Errorf("first push by %q, want oidc:alice@acme.com", got)
	}
	w.login(t, bob)
	if got := pushedBy("b.md"); got != "oidc:bob@acme.com" {
		t.Errorf("push after a new login by %q, want oidc:bob@acme.com", got)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("runDaemon() = %v, want nil\n%s", err, stderr.String())
	}
}

// TestDaemonWaitsForLoginAgain: a login the provider no longer refreshes,
// and then one logged out of, stop the daemon's requests with what to do,
// as a token the server rejected does, instead of retrying them for ever;
// the next teammemd login resumes the repo at once.
func TestDaemonWaitsForLoginAgain(t *testing.T) {
	w := newLoginWorld(t)
	w.login(t, alice)
	cfg := writeConfig(t, "[daemon]\ndebounce = \"100ms\"\nmax_wait = \"200ms\"\n")
	team, sock := t.TempDir(), filepath.Join(t.TempDir(), "ctl.sock")
	args := []string{"--dir", team, "--repo", "acme/app", "--server", w.srv.URL, "--config", cfg,
		"--state-dir", t.TempDir(), "--socket", sock}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stderr lockedbuf.Buffer
	done := make(chan error, 1)
	go func() { done <- runDaemon(ctx, args, &bytes.Buffer{}, &stderr) }()
	save := func(file string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(team, file), []byte("# "+file+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	await := func(what string, ok func(daemon.RepoStatus) bool) daemon.RepoStatus {
		t.Helper()
		var last daemon.RepoStatus
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			if st, err := daemon.FetchStatus(ctx, sock); err == nil && len(st.Repos) == 1 {
				if last = st.Repos[0]; ok(last) {
					return last
				}
			}
		}
		t.Fatalf("the daemon did not get to %s within 20s: last status %+v\n%s", what, last, stderr.String())
		return last
	}
	pushed := func(file string) func(daemon.RepoStatus) bool {
		return func(daemon.RepoStatus) bool { return w.subjectOf(t, file) == "oidc:alice@acme.com" }
	}
	save("a.md")
	await("a.md pushed", pushed("a.md"))

	stopped := func(s daemon.RepoStatus) bool {
		return s.State == daemon.StateUnauthorized && strings.Contains(s.Halted, "run teammemd login")
	}
	for _, end := range []struct {
		name, file string
		end        func()
	}{
		{"a login the provider refuses to refresh", "b.md", func() { w.idp.RevokeAll(); w.clock.Advance(2 * time.Hour) }},
		{"a logout", "c.md", func() {
			if _, stderr, code := runCLI(t, "logout", "--server", w.srv.URL); code != 0 {
				t.Fatalf("teammemd logout exit %d: %s", code, stderr)
			}
		}},
	} {
		end.end()
		save(end.file)
		if st := await("a stop after "+end.name, stopped); st.NextRetry != nil {
			t.Errorf("after %s the status names a retry at %v, want none", end.name, st.NextRetry)
		}
		// Longer than the daemon's check of the login file: the repo
		// stays stopped, and is not closed for want of a login.
		time.Sleep(daemon.DefaultCredentialCheck + time.Second)
		if st, err := daemon.FetchStatus(ctx, sock); err != nil || len(st.Repos) != 1 || !stopped(st.Repos[0]) || len(st.Skipped) != 0 {
			t.Fatalf("after %s and a wait, status %+v, %v; want the repo still stopped, not skipped\n%s", end.name, st, err, stderr.String())
		}
		w.login(t, alice)
		await(end.file+" pushed after teammemd login", pushed(end.file))
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("runDaemon() = %v, want nil\n%s", err, stderr.String())
	}
}

// TestTokenSaysAuthModes: the token commands say which modes the config
// turns on, and warn when static tokens are off.
func TestTokenSaysAuthModes(t *testing.T) {
	isolateConfig(t)
	cfg := writeConfig(t, `[server.auth]
tokens = false
[server.auth.github]
enabled = true
`)
	data := t.TempDir()
	_, stderr, code := runCLI(t, "token", "create", "--config", cfg, "--data", data, "--subject", "ci", "--repos", "acme/*")
	if code != 0 || !strings.Contains(stderr, "server auth modes on: github\n") || !strings.Contains(stderr, "static tokens are off") {
		t.Errorf("token create exit %d, stderr %q, want the modes on and a warning that tokens are off", code, stderr)
	}
	_, stderr, code = runCLI(t, "token", "list", "--data", data)
	if code != 0 || !strings.Contains(stderr, "server auth modes on: token\n") {
		t.Errorf("token list without a config exit %d, stderr %q, want modes on: token", code, stderr)
	}
}
