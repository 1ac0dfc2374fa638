package auth_test

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/teammemd/teammemd/internal/lockedbuf"
	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/auth"
	"github.com/teammemd/teammemd/server/auth/authtest"
	"github.com/teammemd/teammemd/server/servertest"
	"github.com/teammemd/teammemd/server/store"
)

// answer is a status and, for an error, its envelope.
type answer struct {
	status int
	err    *api.Error
}

// call sends method on repo's collection route with bearer, and a PUT body
// of one entry.
func call(t *testing.T, srv *servertest.Server, method, repo, bearer string) answer {
	t.Helper()
	return callURL(t, srv.URL, method, repo, bearer)
}

// callURL is call on the server at base.
func callURL(t *testing.T, base, method, repo, bearer string) answer {
	t.Helper()
	var body io.Reader
	if method == http.MethodPut {
		b, _ := json.Marshal(api.PutRequest{Entries: map[string]string{"a.md": "note " + time.Now().String()}})
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, base+api.Path+"?repo="+repo, body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+bearer)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	a := answer{status: resp.StatusCode}
	if resp.StatusCode >= 300 && resp.StatusCode != http.StatusNotModified {
		a.err = api.ParseError(resp.StatusCode, data)
	}
	return a
}

// want checks an answer's status and, for a 401, its reason and a hint in
// its message.
func want(t *testing.T, name string, got answer, status int, reason, hint string) {
	t.Helper()
	switch {
	case got.status != status:
		t.Errorf("%s = %d %v, want %d", name, got.status, got.err, status)
	case reason != "" && got.err.Details["reason"] != reason:
		t.Errorf("%s reason = %v, want %s", name, got.err.Details["reason"], reason)
	case hint != "" && !strings.Contains(got.err.Message, hint):
		t.Errorf("%s message = %q, want it to say %q", name, got.err.Message, hint)
	}
}

func startWith(t *testing.T, cfg auth.Config, clock *authtest.Clock) (*servertest.Server, *lockedbuf.Buffer) {
	t.Helper()
	logs := &lockedbuf.Buffer{}
	srv := servertest.Start(t, servertest.WithAuth(cfg, auth.Options{HTTPClient: authtest.Client(t), Now: clock.Now}),
		servertest.WithLogger(slog.New(slog.NewJSONHandler(logs, nil))))
	return srv, logs
}

func grant(subject, level string, repos ...string) auth.GrantRule {
	return auth.GrantRule{Subject: subject, Repos: repos, Level: store.Level(level)}
}

func TestOIDC(t *testing.T) {
	clock := authtest.NewClock()
	idp := authtest.NewIdP(t, clock)
	cfg := auth.Config{
		OIDC: auth.OIDCConfig{Enabled: true, Issuer: idp.URL, ClientID: idp.ClientID},
		Grants: []auth.GrantRule{
			grant("group:eng", "write", "acme/**"),
			grant("email:*@acme.com", "read", "acme/**", "docs/*"),
			grant("sub:robot-1", "write", "ci/*"),
		},
	}
	srv, logs := startWith(t, cfg, clock)
	alice := authtest.User{Sub: "u-alice", Email: "alice@acme.com", EmailVerified: true, Groups: []string{"eng"}}
	bob := authtest.User{Sub: "u-bob", Email: "bob@acme.com", EmailVerified: true}
	mallory := authtest.User{Sub: "u-mallory", Email: "mallory@acme.com", EmailVerified: false}
	twoAts := authtest.User{Sub: "u-mallory", Email: "mallory@evil.com@acme.com", EmailVerified: true}
	aliceTok := idp.IDToken(alice, idp.ClientID, time.Hour)
	withClaims := func(u authtest.User, claims map[string]any) string { return idp.IDTokenWith(u, time.Hour, claims) }
	tests := []struct {
		name, method, repo, bearer string
		status                     int
		reason, hint               string
	}{
		{"group eng writes acme/app", http.MethodPut, "acme%2Fapp", aliceTok, 200, "", ""},
		{"verified email reads acme/app", http.MethodGet, "acme%2Fapp", idp.IDToken(bob, idp.ClientID, time.Hour), 200, "", ""},
		{"verified email may not write", http.MethodPut, "acme%2Fapp", idp.IDToken(bob, idp.ClientID, time.Hour), 403, "", "ask the server's admin for a write grant"},
		{"unverified email grants nothing", http.MethodGet, "acme%2Fapp", idp.IDToken(mallory, idp.ClientID, time.Hour), 403, "", ""},
		{"an email of two addresses grants nothing", http.MethodGet, "acme%2Fapp", idp.IDToken(twoAts, idp.ClientID, time.Hour), 403, "", ""},
		{"sub grant", http.MethodPut, "ci%2Fbuild", idp.IDToken(authtest.User{Sub: "robot-1"}, idp.ClientID, time.Hour), 200, "", ""},
		{"other audience", http.MethodGet, "acme%2Fapp", idp.IDToken(alice, "another-app", time.Hour), 401, auth.ReasonInvalid, "teammemd login"},
		{"several audiences, no azp", http.MethodGet, "acme%2Fapp", withClaims(alice, map[string]any{"aud": []string{idp.ClientID, "another-app"}}), 401, auth.ReasonInvalid, "teammemd login"},
		{"several audiences, issued to another app", http.MethodGet, "acme%2Fapp", withClaims(alice, map[string]any{"aud": []string{idp.ClientID, "another-app"}, "azp": "another-app"}), 401, auth.ReasonInvalid, ""},
		{"several audiences, issued to teammemd", http.MethodGet, "acme%2Fapp", withClaims(alice, map[string]any{"aud": []string{idp.ClientID, "another-app"}, "azp": idp.ClientID}), 200, "", ""},
		{"one audience, issued to another app", http.MethodGet, "acme%2Fapp", withClaims(alice, map[string]any{"azp": "another-app"}), 401, auth.ReasonInvalid, ""},
		{"one audience, issued to teammemd", http.MethodGet, "acme%2Fapp", withClaims(alice, map[string]any{"azp": idp.ClientID}), 200, "", ""},
		{"expired", http.MethodGet, "acme%2Fapp", idp.IDToken(alice, idp.ClientID, -time.Hour), 401, auth.ReasonExpired, "teammemd login"},
		{"expired within the clock skew", http.MethodGet, "acme%2Fapp", idp.IDToken(alice, idp.ClientID, -10*time.Second), 200, "", ""},
		{"tampered", http.MethodGet, "acme%2Fapp", aliceTok[:len(aliceTok)-4] + "AAAA", 401, auth.ReasonInvalid, ""},
		{"static tokens still work", http.MethodGet, "acme%2Fapp", srv.Token, 200, "", ""},
		{"GitHub token while github is off", http.MethodGet, "acme%2Fapp", "ghp_0123456789abcdef", 401, auth.ReasonModeOff, "OIDC logins"},
	}
	for _, tt := range tests {
		want(t, tt.name, call(t, srv, tt.method, tt.repo, tt.bearer), tt.status, tt.reason, tt.hint)
	}
	if strings.Contains(logs.String(), aliceTok) {
		t.Error("the server log holds an OIDC token")
	}
	if !strings.Contains(logs.String(), `"subject":"oidc:alice@acme.com","mode":"oidc"`) {
		t.Error("the access log does not name alice's subject and mode")
	}
}

// A login whose email the provider does not vouch for, and whose subject
// id is the email of someone else, never gets that someone's subject (the
// key of their personal lanes, and of the admins list): its subject is
// "oidc:sub:" and the id. An opaque subject id stays "oidc:" and the id.
func TestOIDCSubjectOfAnUnvouchedEmail(t *testing.T) {
	clock := authtest.NewClock()
	idp := authtest.NewIdP(t, clock)
	cfg := auth.Config{OIDC: auth.OIDCConfig{Enabled: true, Issuer: idp.URL, ClientID: idp.ClientID},
		Grants: []auth.GrantRule{grant("group:eng", "read", "acme/**")}}
	srv, logs := startWith(t, cfg, clock)
	for _, u := range []authtest.User{
		{Sub: "alice@acme.com", Email: "mallory@other.org", EmailVerified: false, Groups: []string{"eng"}},
		{Sub: "alice@acme.com", Groups: []string{"eng"}},
		{Sub: "u-robot", Groups: []string{"eng"}},
	} {
		// Let in by its group: 404, as the repo holds nothing yet.
		want(t, "login of "+u.Sub, call(t, srv, http.MethodGet, "acme%2Fapp", idp.IDToken(u, idp.ClientID, time.Hour)), 404, "", "")
	}
	if strings.Contains(logs.String(), `"subject":"oidc:alice@acme.com"`) {
		t.Errorf("a login that does not vouch for alice@acme.com got her subject:\n%s", logs.String())
	}
	for _, subject := range []string{`"subject":"oidc:sub:alice@acme.com"`, `"subject":"oidc:u-robot"`} {
		if !strings.Contains(logs.String(), subject) {
			t.Errorf("the access log has no %s:\n%s", subject, logs.String())
		}
	}
}

// TestOIDCKeyRotation checks that a token signed with a new key is accepted
// once the provider publishes it and the keys may be fetched again (503, to
// retry, until then), and one signed with the retired key is not.
func TestOIDCKeyRotation(t *testing.T) {
	clock := authtest.NewClock()
	idp := authtest.NewIdP(t, clock)
	cfg := auth.Config{
		OIDC:   auth.OIDCConfig{Enabled: true, Issuer: idp.URL, ClientID: idp.ClientID},
		Grants: []auth.GrantRule{grant("group:eng", "write", "acme/**")},
	}
	srv, _ := startWith(t, cfg, clock)
	alice := authtest.User{Sub: "u-alice", Groups: []string{"eng"}}
	before := idp.IDToken(alice, idp.ClientID, time.Hour)
	want(t, "token of the first key", call(t, srv, http.MethodGet, "acme%2Fapp", before), 404, "", "")
	oldKID := idp.KeyID()
	idp.Rotate()
	if idp.KeyID() == oldKID {
		t.Fatal("Rotate kept the key id")
	}
	after := idp.IDToken(alice, idp.ClientID, time.Hour)
	want(t, "token of the new key, keys fetched within the refresh interval", call(t, srv, http.MethodGet, "acme%2Fapp", after), 503, "", "")
	clock.Advance(auth.DefaultJWKSRefreshInterval)
	want(t, "token of the new key", call(t, srv, http.MethodGet, "acme%2Fapp", after), 404, "", "")
	want(t, "token of the retired key", call(t, srv, http.MethodGet, "acme%2Fapp", before), 401, auth.ReasonInvalid, "teammemd login")
}

func TestGitHub(t *testing.T) {
	clock := authtest.NewClock()
	gh := authtest.NewGitHub(t)
	if !strings.HasPrefix(gh.URL, "http://127.0.0.1:") {
		t.Fatalf("GitHub API %s is not the loopback fake", gh.URL)
	}
	const tok, other = "ghp_octocatToken000000000000000000000", "gho_stranger0000000000000000000000000"
	gh.AddUser(tok, "octocat")
	gh.AddUser(other, "stranger")
	gh.Grant("octocat", "acme/app", "write")
	gh.Grant("octocat", "acme/lib", "read")
	cfg := auth.Config{GitHub: auth.GitHubConfig{Enabled: true, APIURL: gh.URL, RepoHost: auth.GitHubHost, CacheTTL: time.Minute}}
	srv, _ := startWith(t, cfg, clock)
	tests := []struct {
		name, method, repo, bearer string
		status                     int
		reason, hint               string
	}{
		{"push permission writes", http.MethodPut, "acme%2Fapp", tok, 200, "", ""},
		{"pull permission reads", http.MethodGet, "acme%2Flib", tok, 404, "", ""},
		{"pull permission may not write", http.MethodPut, "acme%2Flib", tok, 403, "", "push access on GitHub"},
		{"no permission", http.MethodGet, "acme%2Fapp", other, 403, "", "GitHub gives github:stranger no access"},
		{"not a github.com slug", http.MethodGet, "gitlab.example.com%2Facme%2Fapp", tok, 403, "", ""},
		{"unknown token", http.MethodGet, "acme%2Fapp", "ghp_revokedrevokedrevokedrevokedrevo", 401, auth.ReasonRejected, "gh auth token"},
		{"bad slug", http.MethodGet, "..%2Fx", tok, 400, "", ""},
	}
	for _, tt := range tests {
		want(t, tt.name, call(t, srv, tt.method, tt.repo, tt.bearer), tt.status, tt.reason, tt.hint)
	}

	// GitHub's answers are cached for the TTL, then asked again: a revoked
	// token stops working once the TTL has passed.
	calls := gh.Calls.Load()
	want(t, "cached", call(t, srv, http.MethodGet, "acme%2Fapp", tok), 200, "", "")
	if got := gh.Calls.Load(); got != calls {
		t.Errorf("GitHub calls on a cached verdict = %d, want %d", got, calls)
	}
	gh.RevokeToken(tok)
	want(t, "revoked, still cached", call(t, srv, http.MethodGet, "acme%2Fapp", tok), 200, "", "")
	clock.Advance(time.Minute)
	want(t, "revoked, TTL passed", call(t, srv, http.MethodGet, "acme%2Fapp", tok), 401, auth.ReasonRejected, "")
}

// TestGitHubEnterprise maps slugs of the configured host to GitHub
// Enterprise repos.
func TestGitHubEnterprise(t *testing.T) {
	gh := authtest.NewGitHub(t)
	const tok = "ghp_enterprise00000000000000000000000"
	gh.AddUser(tok, "octocat")
	gh.Grant("octocat", "acme/app", "write")
	cfg := auth.Config{GitHub: auth.GitHubConfig{Enabled: true, APIURL: gh.URL + "/", RepoHost: "ghe.example.com"}}
	srv, _ := startWith(t, cfg, authtest.NewClock())
	want(t, "enterprise slug", call(t, srv, http.MethodPut, "ghe.example.com%2Facme%2Fapp", tok), 200, "", "")
	want(t, "github.com slug", call(t, srv, http.MethodGet, "acme%2Fapp", tok), 403, "", "")
}

func TestClaude(t *testing.T) {
	clock := authtest.NewClock()
	prof := authtest.NewClaudeProfile(t)
	const alice, carol, outsider = "sk-ant-oat01-alice", "sk-ant-oat01-carol", "sk-ant-oat01-outsider"
	prof.Add(alice, authtest.Account{UUID: "acc-1", Email: "Alice@Acme.com", OrgUUID: "org-acme"})
	prof.Add(carol, authtest.Account{UUID: "acc-2", Email: "carol@contractor.io", OrgUUID: "org-acme"})
	prof.Add(outsider, authtest.Account{UUID: "acc-3", Email: "eve@elsewhere.io", OrgUUID: "org-other"})
	cfg := auth.Config{
		Claude: auth.ClaudeConfig{Enabled: true, ProfileURL: prof.URL, CacheTTL: time.Minute},
		Grants: []auth.GrantRule{
			grant("email:*@acme.com", "write", "acme/**"),
			grant("org:org-acme", "read", "acme/**"),
			grant("account:acc-3", "read", "public/*"),
		},
	}
	srv, logs := startWith(t, cfg, clock)
	tests := []struct {
		name, method, repo, bearer string
		status                     int
		reason, hint               string
	}{
		{"email domain writes", http.MethodPut, "acme%2Fapp", alice, 200, "", ""},
		{"organization reads", http.MethodGet, "acme%2Fapp", carol, 200, "", ""},
		{"organization may not write", http.MethodPut, "acme%2Fapp", carol, 403, "", "grant"},
		{"account grant", http.MethodGet, "public%2Fdocs", outsider, 404, "", ""},
		{"no grant", http.MethodGet, "acme%2Fapp", outsider, 403, "", "claude:eve@elsewhere.io has no grant"},
		{"unknown token", http.MethodGet, "acme%2Fapp", "sk-ant-oat01-unknown", 401, auth.ReasonRejected, "/login"},
	}
	for _, tt := range tests {
		want(t, tt.name, call(t, srv, tt.method, tt.repo, tt.bearer), tt.status, tt.reason, tt.hint)
	}
	for _, tok := range []string{alice, carol, outsider} {
		if strings.Contains(logs.String(), tok) {
			t.Errorf("the server log holds a Claude token")
		}
	}

	// A good verdict is cached; a refusal is cached for the failure TTL; a
	// check that could not be made is never cached.
	calls := prof.Calls.Load()
	want(t, "cached", call(t, srv, http.MethodGet, "acme%2Fapp", alice), 200, "", "")
	if got := prof.Calls.Load(); got != calls {
		t.Errorf("profile calls on a cached verdict = %d, want %d", got, calls)
	}
	const late = "sk-ant-oat01-late"
	prof.SetDown(true)
	want(t, "profile endpoint down", call(t, srv, http.MethodGet, "acme%2Fapp", late), 503, "", "")
	prof.SetDown(false)
	want(t, "unknown while the endpoint is up", call(t, srv, http.MethodGet, "acme%2Fapp", late), 401, auth.ReasonRejected, "")
	prof.Add(late, authtest.Account{UUID: "acc-4", Email: "dan@acme.com"})
	prof.Revoke(alice)
	clock.Advance(time.Minute)
	want(t, "known now, the refusal's TTL passed", call(t, srv, http.MethodGet, "acme%2Fapp", late), 200, "", "")
	want(t, "signed out, TTL passed", call(t, srv, http.MethodGet, "acme%2Fapp", alice), 401, auth.ReasonRejected, "")
}

// TestModesOff checks that every mode can be switched off, static tokens
// included.
func TestModesOff(t *testing.T) {
	prof := authtest.NewClaudeProfile(t)
	prof.Add("sk-ant-oat01-alice", authtest.Account{UUID: "acc-1", Email: "alice@acme.com"})
	off := false
	cfg := auth.Config{
		Tokens: &off,
		Claude: auth.ClaudeConfig{Enabled: true, ProfileURL: prof.URL},
		Grants: []auth.GrantRule{grant("email:*@acme.com", "write", "**")},
	}
	srv, _ := startWith(t, cfg, authtest.NewClock())
	want(t, "static token, tokens off", call(t, srv, http.MethodGet, "acme%2Fapp", srv.Token), 401, auth.ReasonModeOff, "Claude account tokens")
	want(t, "unrecognised credential", call(t, srv, http.MethodGet, "acme%2Fapp", "opaque"), 401, auth.ReasonUnrecognised, "Claude account tokens")
	want(t, "Claude token", call(t, srv, http.MethodGet, "acme%2Fapp", "sk-ant-oat01-alice"), 404, "", "")
}

// TestDiscovery reads /.well-known/teammemd without credentials: the modes,
// device login from the provider's own discovery document, and a store
// identity that survives a restart.
func TestDiscovery(t *testing.T) {
	clock := authtest.NewClock()
	idp := authtest.NewIdP(t, clock)
	cfg := auth.Config{
		OIDC:   auth.OIDCConfig{Enabled: true, Issuer: idp.URL, ClientID: idp.ClientID},
		GitHub: auth.GitHubConfig{Enabled: true, APIURL: authtest.NewGitHub(t).URL},
		Grants: []auth.GrantRule{grant("group:eng", "write", "acme/**")},
	}
	srv, _ := startWith(t, cfg, clock)
	get := func() api.Discovery {
		t.Helper()
		resp, err := http.Get(srv.URL + api.DiscoveryPath)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var d api.Discovery
		if err := json.NewDecoder(resp.Body).Decode(&d); err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s = %d, %v", api.DiscoveryPath, resp.StatusCode, err)
		}
		return d
	}
	d := get()
	wantLogin := api.Login{
		Issuer: idp.URL, ClientID: idp.ClientID, DeviceAuthorizationEndpoint: idp.URL + "/device/code",
		TokenEndpoint: idp.URL + "/token", RevocationEndpoint: idp.URL + "/revoke", Scopes: auth.DefaultOIDCScopes,
	}
	if d.Login == nil || d.Login.Issuer != wantLogin.Issuer || d.Login.DeviceAuthorizationEndpoint != wantLogin.DeviceAuthorizationEndpoint ||
		d.Login.TokenEndpoint != wantLogin.TokenEndpoint || d.Login.RevocationEndpoint != wantLogin.RevocationEndpoint ||
		d.Login.ClientID != wantLogin.ClientID || strings.Join(d.Login.Scopes, " ") != strings.Join(wantLogin.Scopes, " ") {
		t.Errorf("discovery login = %+v, want %+v", d.Login, wantLogin)
	}
	if strings.Join(d.AuthModes, ",") != "token,oidc,github" || len(d.StoreID) != 32 {
		t.Errorf("discovery = %+v, want modes token,oidc,github and a 32-digit store id", d)
	}
	srv.Restart(t)
	if again := get(); again.StoreID != d.StoreID {
		t.Errorf("store id after a restart = %q, want %q", again.StoreID, d.StoreID)
	}
}

// TestOIDCKeysOverPlainHTTP: a provider whose discovery document names its
// keys at a plain http:// address off loopback is not trusted: the keys are
// never fetched (authtest.Client fails the test if they are), and the
// request is answered 503 with the key named in the log.
func TestOIDCKeysOverPlainHTTP(t *testing.T) {
	clock := authtest.NewClock()
	idp := authtest.NewIdP(t, clock)
	idp.SetJWKSURI("http://keys.acme.example/jwks")
	cfg := auth.Config{
		OIDC:   auth.OIDCConfig{Enabled: true, Issuer: idp.URL, ClientID: idp.ClientID},
		Grants: []auth.GrantRule{grant("group:eng", "write", "acme/**")},
	}
	srv, logs := startWith(t, cfg, clock)
	alice := authtest.User{Sub: "u-alice", Groups: []string{"eng"}}
	want(t, "token of a provider with http:// keys", call(t, srv, http.MethodGet, "acme%2Fapp", idp.IDToken(alice, idp.ClientID, time.Hour)), 503, "", "")
	if !strings.Contains(logs.String(), "jwks_uri") {
		t.Errorf("the server log does not name jwks_uri:\n%s", logs.String())
	}
}

// TestGitHubPublicRepo: GitHub gives every user pull on a public repo, which
// is no grant to its team memory unless read_public_repos says so; push
// still grants write.
func TestGitHubPublicRepo(t *testing.T) {
	gh := authtest.NewGitHub(t)
	const owner, stranger = "ghp_ownerToken00000000000000000000000", "ghp_strangerToken0000000000000000000"
	gh.AddUser(owner, "octocat")
	gh.AddUser(stranger, "stranger")
	gh.SetPublic("acme/oss")
	gh.Grant("octocat", "acme/oss", "write")
	cfg := auth.Config{GitHub: auth.GitHubConfig{Enabled: true, APIURL: gh.URL, RepoHost: auth.GitHubHost}}
	srv, _ := startWith(t, cfg, authtest.NewClock())
	want(t, "push on a public repo writes", call(t, srv, http.MethodPut, "acme%2Foss", owner), 200, "", "")
	want(t, "any user reads a public repo", call(t, srv, http.MethodGet, "acme%2Foss", stranger), 403, "", "")

	cfg.GitHub.ReadPublicRepos = true
	srv, _ = startWith(t, cfg, authtest.NewClock())
	want(t, "any user reads a public repo, read_public_repos on", call(t, srv, http.MethodGet, "acme%2Foss", stranger), 404, "", "")
	want(t, "any user writes a public repo, read_public_repos on", call(t, srv, http.MethodPut, "acme%2Foss", stranger), 403, "", "")
}
