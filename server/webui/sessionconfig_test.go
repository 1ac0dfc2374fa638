package webui_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server"
	"github.com/teammemd/teammemd/server/auth"
	"github.com/teammemd/teammemd/server/auth/authtest"
	"github.com/teammemd/teammemd/server/servertest"
	"github.com/teammemd/teammemd/server/store"
)

// alice is the person the provider signs in, in group eng.
var alice = &authtest.User{Sub: "u-alice", Email: "alice@acme.com", EmailVerified: true, Groups: []string{"eng"}}

// authSetup is a test provider and the [server.auth] a test server runs
// with, which a restart may change.
type authSetup struct {
	t     *testing.T
	idp   *authtest.IdP
	clock *authtest.Clock
}

func newAuthSetup(t *testing.T) *authSetup {
	clock := authtest.NewClock()
	return &authSetup{t: t, idp: authtest.NewIdP(t, clock), clock: clock}
}

// config is [server.auth] with static tokens and OIDC as given, and one
// grant of write on acme/** to subject.
func (a *authSetup) config(tokens, oidc bool, subject string) auth.Config {
	return auth.Config{
		Tokens: &tokens,
		OIDC:   auth.OIDCConfig{Enabled: oidc, Issuer: a.idp.URL, ClientID: a.idp.ClientID},
		Grants: []auth.GrantRule{{Subject: subject, Repos: []string{"acme/**"}, Level: store.LevelWrite}},
	}
}

// with runs the server with cfg and the view's admins.
func (a *authSetup) with(cfg auth.Config, admins ...string) []servertest.Option {
	return []servertest.Option{
		servertest.WithAuth(cfg, auth.Options{HTTPClient: authtest.Client(a.t), Now: a.clock.Now}),
		servertest.WithConfig(func(c *server.Config) { c.Auth, c.UI.Admins = cfg, append([]string{admin}, admins...) }),
	}
}

// signInOIDC signs a new browser in through the provider as u.
func (a *authSetup) signInOIDC(srv *servertest.Server, u *authtest.User) *browser {
	a.t.Helper()
	a.idp.SignInAs(u)
	b := newBrowser(a.t, srv.URL)
	p := b.follow(b.post("/ui/signin/oidc", url.Values{"csrf": {b.get("/ui/signin").csrf(a.t)}}))
	if p.status != http.StatusOK || !strings.Contains(p.body, "oidc:"+u.Email) {
		a.t.Fatalf("OIDC sign-in as %s = %d at %s, want signed in:\n%s", u.Email, p.status, p.url, p.body)
	}
	return b
}

// sessionEnded reports whether b's session is gone from the store.
func sessionEnded(t *testing.T, srv *servertest.Server, hash string) bool {
	t.Helper()
	_, err := srv.Store.WebSession(context.Background(), hash, time.Now())
	return err != nil
}

// TestOIDCSessionGrantsFollowConfig checks that a session signed in with
// the provider has the grants the rules in force give it now: a grant
// removed while the server was down is gone at the next page, for the
// session from before as for a new sign-in, and so is an admin right.
func TestOIDCSessionGrantsFollowConfig(t *testing.T) {
	a := newAuthSetup(t)
	srv := startServer(t, a.with(a.config(true, true, "group:eng"), "oidc:alice@acme.com")...)
	seed(t, srv, "acme/app", map[string]string{"a.md": "first"})
	seed(t, srv, "acme/app", map[string]string{"a.md": "second"})
	b := a.signInOIDC(srv, alice)
	if p := b.get("/ui/note?repo=acme/app&key=a.md"); p.status != http.StatusOK || !strings.Contains(p.body, "second") {
		t.Fatalf("GET /ui/note with the grant = %d, want 200 with the note:\n%s", p.status, p.body)
	}
	if p := b.get("/ui/audit"); p.status != http.StatusOK {
		t.Fatalf("GET /ui/audit as an admin = %d, want 200", p.status)
	}

	srv.RestartWith(t, a.with(a.config(false, true, "group:ops"))...)
	if p := b.get("/ui/note?repo=acme/app&key=a.md"); p.status != http.StatusNotFound || strings.Contains(p.body, "second") {
		t.Errorf("GET /ui/note after the grant was removed = %d, want 404 without the note:\n%s", p.status, p.body)
	}
	if p := b.get("/ui/"); !strings.Contains(p.body, "oidc:alice@acme.com") || strings.Contains(p.body, "acme/app") {
		t.Errorf("GET /ui/ after the grant was removed = %d, want alice signed in and no acme/app:\n%s", p.status, p.body)
	}
	restore := url.Values{"csrf": {b.get("/ui/").csrf(t)}, "repo": {"acme/app"}, "key": {"a.md"}, "version": {"1"}}
	if p := b.post("/ui/restore", restore); p.status != http.StatusNotFound {
		t.Errorf("POST /ui/restore after the grant was removed = %d, want 404", p.status)
	}
	if snap, err := srv.Store.Snapshot(context.Background(), "acme/app", true); err != nil || snap.Entries["a.md"] != "second" {
		t.Errorf("a.md after a refused restore = %q (%v), want second", snap.Entries["a.md"], err)
	}
	if p := b.get("/ui/audit"); p.status != http.StatusNotFound {
		t.Errorf("GET /ui/audit after alice left the admins = %d, want 404", p.status)
	}

	fresh := a.signInOIDC(srv, alice)
	if p := fresh.get("/ui/"); strings.Contains(p.body, "acme/app") {
		t.Errorf("a new sign-in sees acme/app after the grant was removed:\n%s", p.body)
	}
	srv.RestartWith(t, a.with(a.config(false, true, "group:eng"))...)
	if p := b.get("/ui/note?repo=acme/app&key=a.md"); p.status != http.StatusOK || !strings.Contains(p.body, "second") {
		t.Errorf("GET /ui/note after the grant came back = %d, want 200 with the note", p.status)
	}
}

// TestSessionEndsWhenTokensTurnedOff checks that a session signed in with
// an API token ends once the server no longer accepts tokens, as the API
// refuses the token itself.
func TestSessionEndsWhenTokensTurnedOff(t *testing.T) {
	a := newAuthSetup(t)
	srv := startServer(t, a.with(a.config(true, true, "group:eng"))...)
	seed(t, srv, "acme/app", map[string]string{"a.md": "team note"})
	b := signedIn(t, srv, "judy", grant("**", store.LevelRead))
	hash := b.sessionHash(t)

	srv.RestartWith(t, a.with(a.config(false, true, "group:eng"))...)
	if p := b.get("/ui/note?repo=acme/app&key=a.md"); !signedOut(p) || strings.Contains(p.body, "team note") {
		t.Errorf("GET /ui/note with a token session after tokens were turned off = %d at %s, want the sign-in page", p.status, p.url)
	}
	if !sessionEnded(t, srv, hash) {
		t.Error("the token session is still in the store after tokens were turned off")
	}
}

// TestSessionEndsWhenOIDCTurnedOff checks that a session signed in with
// the provider ends once the server no longer accepts OIDC, admin or not.
func TestSessionEndsWhenOIDCTurnedOff(t *testing.T) {
	a := newAuthSetup(t)
	srv := startServer(t, a.with(a.config(true, true, "group:eng"), "oidc:alice@acme.com")...)
	seed(t, srv, "acme/app", map[string]string{"a.md": "team note"})
	b := a.signInOIDC(srv, alice)
	hash := b.sessionHash(t)

	srv.RestartWith(t, a.with(a.config(true, false, "group:eng"), "oidc:alice@acme.com")...)
	for _, path := range []string{"/ui/note?repo=acme/app&key=a.md", "/ui/audit"} {
		if p := b.get(path); !signedOut(p) {
			t.Errorf("GET %s with an OIDC session after OIDC was turned off = %d at %s, want the sign-in page", path, p.status, p.url)
		}
	}
	if !sessionEnded(t, srv, hash) {
		t.Error("the OIDC session is still in the store after OIDC was turned off")
	}
}

// TestSessionWithoutIdentityEnds checks that an OIDC session stored
// before sessions kept what the provider vouched for, with its grants
// fixed at sign-in, ends rather than keeps them.
func TestSessionWithoutIdentityEnds(t *testing.T) {
	a := newAuthSetup(t)
	srv := startServer(t, a.with(a.config(true, true, "group:eng"))...)
	seed(t, srv, "acme/app", map[string]string{"a.md": "team note"})
	b := newBrowser(t, srv.URL)
	u, _ := url.Parse(srv.URL + "/ui/")
	b.c.Jar.SetCookies(u, []*http.Cookie{{Name: "teammemd_ui", Value: "old-session-id", Path: "/ui"}})
	hash := b.sessionHash(t)
	data := `{"subject":"oidc:alice@acme.com","mode":"oidc","grants":[{"pattern":"acme/**","level":"write"}],"csrf":"c"}`
	now := time.Now()
	ws := store.WebSession{IDHash: hash, Data: []byte(data), Created: now, Expires: now.Add(time.Hour)}
	if err := srv.Store.PutWebSession(context.Background(), ws); err != nil {
		t.Fatal(err)
	}
	if p := b.get("/ui/note?repo=acme/app&key=a.md"); !signedOut(p) {
		t.Errorf("GET /ui/note with a session that kept no identity = %d at %s, want the sign-in page", p.status, p.url)
	}
	if !sessionEnded(t, srv, hash) {
		t.Error("the session that kept no identity is still in the store")
	}
}
