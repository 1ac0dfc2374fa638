package webui_test

import (
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server"
	"github.com/teammemd/teammemd/server/auth"
	"github.com/teammemd/teammemd/server/auth/authtest"
	"github.com/teammemd/teammemd/server/servertest"
	"github.com/teammemd/teammemd/server/store"
)

// oidcServer runs the server with OIDC sign-in against a test provider on
// 127.0.0.1 that grants acme/app to every verified acme.com email.
func oidcServer(t *testing.T, tokens bool, opts ...servertest.Option) (*servertest.Server, *authtest.IdP) {
	t.Helper()
	clock := authtest.NewClock()
	idp := authtest.NewIdP(t, clock)
	cfg := auth.Config{
		Tokens: &tokens,
		OIDC:   auth.OIDCConfig{Enabled: true, Issuer: idp.URL, ClientID: idp.ClientID},
		Grants: []auth.GrantRule{{Subject: "email:*@acme.com", Repos: []string{"acme/app"}, Level: store.LevelWrite}},
	}
	opts = append([]servertest.Option{servertest.WithAuth(cfg, auth.Options{HTTPClient: authtest.Client(t), Now: clock.Now}),
		servertest.WithConfig(func(c *server.Config) { c.Auth = cfg })}, opts...)
	return startServer(t, opts...), idp
}

// forwardedHTTPS is a transport that says, as a proxy ending TLS would,
// that each request came over https.
type forwardedHTTPS struct{}

func (forwardedHTTPS) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("X-Forwarded-Proto", "https")
	return http.DefaultTransport.RoundTrip(r)
}

// Behind a trusted proxy that ends TLS, the provider is told to send the
// browser back over https, the scheme the browser used; the same header
// from a peer the server does not trust changes nothing.
func TestOIDCRedirectBehindAProxy(t *testing.T) {
	for _, trusted := range []bool{true, false} {
		var opts []servertest.Option
		if trusted {
			opts = append(opts, servertest.WithConfig(func(c *server.Config) { c.TrustedProxies = []string{"127.0.0.1", "::1"} }))
		}
		srv, _ := oidcServer(t, true, opts...)
		b := newBrowser(t, srv.URL)
		b.c.Transport = forwardedHTTPS{}
		start := b.post("/ui/signin/oidc", url.Values{"csrf": {b.get("/ui/signin").csrf(t)}})
		au, err := url.Parse(continueURL(t, start))
		if err != nil {
			t.Fatal(err)
		}
		want := srv.URL + "/ui/signin/callback"
		if trusted {
			want = "https://" + strings.TrimPrefix(want, "http://")
		}
		if got := au.Query().Get("redirect_uri"); got != want {
			t.Errorf("trusted proxy %v: redirect_uri = %q, want %q", trusted, got, want)
		}
	}
}

var continueLink = regexp.MustCompile(`<a href="([^"]+)" id="continue">`)

// continueURL is where the page that starts a sign-in sends the browser.
func continueURL(t *testing.T, p page) string {
	t.Helper()
	m := continueLink.FindStringSubmatch(p.body)
	if p.status != http.StatusOK || m == nil || !strings.Contains(p.body, `http-equiv="refresh"`) {
		t.Fatalf("sign-in start = %d, want a page that moves on to the provider:\n%s", p.status, p.body)
	}
	return html.UnescapeString(m[1])
}

// follow goes on from a sign-in start page to the provider, as its
// refresh does, and on through the redirects back to the view.
func (b *browser) follow(start page) page {
	b.t.Helper()
	req, err := http.NewRequest(http.MethodGet, continueURL(b.t, start), nil)
	if err != nil {
		b.t.Fatal(err)
	}
	return b.do(req)
}

func TestOIDCSignIn(t *testing.T) {
	srv, idp := oidcServer(t, false)
	seed(t, srv, "acme/app", map[string]string{"a.md": "team note"})
	seed(t, srv, "other/x", map[string]string{"b.md": "not theirs"})
	idp.SignInAs(&authtest.User{Sub: "u1", Email: "rosa@acme.com", EmailVerified: true})

	b := newBrowser(t, srv.URL)
	form := b.get("/ui/note?repo=acme/app&key=a.md")
	if strings.Contains(form.body, `name="token"`) {
		t.Errorf("sign-in page of a server without tokens offers the token form")
	}
	next, _ := url.Parse(form.url)
	p := b.follow(b.post("/ui/signin/oidc", url.Values{"csrf": {form.csrf(t)}, "next": {next.Query().Get("next")}}))
	if p.status != http.StatusOK || !strings.Contains(p.body, "oidc:rosa@acme.com") || !strings.Contains(p.body, "team note") {
		t.Fatalf("OIDC sign-in = %d at %s, want the note page for oidc:rosa@acme.com:\n%s", p.status, p.url, p.body)
	}
	if p := b.get("/ui/"); strings.Contains(p.body, "other/x") {
		t.Errorf("OIDC user sees a repo outside their grants:\n%s", p.body)
	}
}

func TestOIDCSignInRefused(t *testing.T) {
	srv, idp := oidcServer(t, true)
	b := newBrowser(t, srv.URL)

	idp.SignInAs(nil)
	p := b.follow(b.post("/ui/signin/oidc", url.Values{"csrf": {b.get("/ui/signin").csrf(t)}}))
	if p.status != http.StatusForbidden || !strings.Contains(p.body, "access_denied") {
		t.Errorf("sign-in the provider refused = %d, want 403 naming access_denied:\n%s", p.status, p.body)
	}

	// A callback the browser did not start: another browser's code and
	// state, or none, are refused.
	idp.SignInAs(&authtest.User{Sub: "u2", Email: "sam@acme.com", EmailVerified: true})
	noFollow := newBrowser(t, srv.URL)
	noFollow.c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	start := noFollow.post("/ui/signin/oidc", url.Values{"csrf": {noFollow.get("/ui/signin").csrf(t)}})
	authorize := continueURL(t, start)
	if !strings.HasPrefix(authorize, idp.URL+"/authorize?") {
		t.Fatalf("sign-in start redirects to %q, want the provider's authorization endpoint", authorize)
	}
	au, _ := url.Parse(authorize)
	for _, param := range []string{"state", "nonce", "code_challenge"} {
		if au.Query().Get(param) == "" {
			t.Errorf("authorization request lacks %s: %s", param, authorize)
		}
	}
	if m := au.Query().Get("code_challenge_method"); m != "S256" {
		t.Errorf("code_challenge_method = %q, want S256", m)
	}
	resp, err := noFollow.c.Get(authorize)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	callback := resp.Header.Get("Location")
	attacker := newBrowser(t, srv.URL)
	if p := attacker.get(strings.TrimPrefix(callback, srv.URL)); p.status != http.StatusBadRequest {
		t.Errorf("another browser's callback = %d, want 400", p.status)
	}
	if p := noFollow.get("/ui/signin/callback?code=x&state=y"); p.status != http.StatusBadRequest {
		t.Errorf("callback with a made-up state = %d, want 400", p.status)
	}
	if p := attacker.get("/ui/"); !signedOut(p) {
		t.Errorf("the attacker's browser is signed in after replaying a callback")
	}
}

// A sign-in whose ID token the server refuses (here expired) tells the
// browser's user to sign in again, not to run a command.
func TestOIDCSignInRefusedSaysSignInAgain(t *testing.T) {
	srv, idp := oidcServer(t, true)
	b := newBrowser(t, srv.URL)
	idp.TokenTTL = -time.Hour
	idp.SignInAs(&authtest.User{Sub: "u3", Email: "sam@acme.com", EmailVerified: true})
	p := b.follow(b.post("/ui/signin/oidc", url.Values{"csrf": {b.get("/ui/signin").csrf(t)}}))
	if p.status != http.StatusUnauthorized || !strings.Contains(p.body, "sign in again") || strings.Contains(p.body, "teammemd login") {
		t.Errorf("sign-in with an expired ID token = %d, want 401 saying to sign in again, not teammemd login:\n%s", p.status, p.body)
	}
}
