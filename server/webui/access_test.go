package webui_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/server"
	"github.com/teammemd/teammemd/server/servertest"
	"github.com/teammemd/teammemd/server/store"
)

// TestGrantsHideOtherRepos checks that a person sees only the repos their
// grants let them read: another repo is missing from every list, and a
// guessed address of it gets the very answer of a repo that does not
// exist.
func TestGrantsHideOtherRepos(t *testing.T) {
	srv := startServer(t)
	put(t, srv, srv.Token, "acme/app", map[string]string{"a.md": "shared words"})
	put(t, srv, srv.Token, "other/secret", map[string]string{"b.md": "hidden words", "MEMORY.md": "hidden index"})
	b := signedIn(t, srv, "bob", grant("acme/app", store.LevelRead))

	if p := b.get("/ui/"); strings.Contains(p.body, "other/secret") || !strings.Contains(p.body, "acme/app") {
		t.Errorf("GET /ui/ = %q, want acme/app and not other/secret", p.body)
	}
	if p := b.get("/ui/search?q=words"); strings.Contains(p.body, "b.md") || !strings.Contains(p.body, "a.md") {
		t.Errorf("search(words) = %q, want a.md only", p.body)
	}
	missing := b.get("/ui/repo?repo=nobody/none")
	if missing.status != http.StatusNotFound {
		t.Fatalf("GET a missing repo = %d, want 404", missing.status)
	}
	for _, path := range []string{
		"/ui/repo?repo=other/secret",
		"/ui/note?repo=other/secret&key=b.md",
		"/ui/history?repo=other/secret&key=b.md",
		"/ui/diff?repo=other/secret&key=b.md&from=1&to=1",
		"/ui/loads?repo=other/secret",
		"/ui/audit?repo=other/secret",
		"/ui/purge?repo=other/secret&key=b.md",
	} {
		p := b.get(path)
		if p.status != missing.status || p.body != missing.body {
			t.Errorf("GET %s = %d %q, want the 404 of a missing repo %q", path, p.status, p.body, missing.body)
		}
	}
}

// TestCSRF checks that every POST without the page's anti-forgery token,
// or with another session's, is refused and changes nothing.
func TestCSRF(t *testing.T) {
	srv := startServer(t)
	put(t, srv, srv.Token, "acme/app", map[string]string{"a.md": "one"})
	put(t, srv, srv.Token, "acme/app", map[string]string{"a.md": "two"})
	b := signedIn(t, srv, "carol", grant("acme/**", store.LevelWrite))
	other := signedIn(t, srv, "dave", grant("acme/**", store.LevelWrite))
	otherToken := other.get("/ui/").csrf(t)
	restore := url.Values{"repo": {"acme/app"}, "key": {"a.md"}, "version": {"1"}}

	for name, token := range map[string]string{"none": "", "another session's": otherToken, "made up": "x"} {
		form := url.Values{"csrf": {token}}
		for k, v := range restore {
			form[k] = v
		}
		if p := b.post("/ui/restore", form); p.status != http.StatusForbidden {
			t.Errorf("POST /ui/restore with %s token = %d, want 403", name, p.status)
		}
		if p := b.post("/ui/signout", url.Values{"csrf": {token}}); p.status != http.StatusForbidden {
			t.Errorf("POST /ui/signout with %s token = %d, want 403", name, p.status)
		}
	}
	if got := entries(t, srv, "acme/app")["a.md"]; got != "two" {
		t.Errorf("a.md after forged restores = %q, want two", got)
	}
	if p := b.get("/ui/"); p.status != http.StatusOK || !strings.Contains(p.body, "carol") {
		t.Errorf("GET /ui/ after forged sign-outs = %d, want still signed in", p.status)
	}

	fresh := newBrowser(t, srv.URL)
	token := srv.CreateToken(t, "erin", grant("**", store.LevelRead))
	if p := fresh.post("/ui/signin/token", url.Values{"token": {token}}); p.status != http.StatusForbidden {
		t.Errorf("POST /ui/signin/token without the form's token = %d, want 403", p.status)
	}
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/ui/restore", strings.NewReader(url.Values{"csrf": {b.get("/ui/").csrf(t)}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", "https://evil.example")
	if p := b.do(req); p.status != http.StatusForbidden {
		t.Errorf("POST /ui/restore from another origin = %d, want 403", p.status)
	}
}

// TestSecurityHeaders checks the headers of every kind of answer.
func TestSecurityHeaders(t *testing.T) {
	srv := startServer(t)
	put(t, srv, srv.Token, "acme/app", map[string]string{"a.md": "one"})
	b := signedIn(t, srv, "frank", grant("**", store.LevelRead))
	for _, path := range []string{"/ui/", "/ui/signin", "/ui/static/style.css", "/ui/nowhere", "/ui/repo?repo=acme/app",
		"/ui/note?repo=acme/app&key=a.md", "/ui/repo?repo=no/such"} {
		p := b.get(path)
		for h, want := range map[string]string{
			"Content-Security-Policy": "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
			"X-Content-Type-Options":  "nosniff",
			"Referrer-Policy":         "same-origin",
		} {
			if got := p.header.Get(h); got != want {
				t.Errorf("GET %s: %s = %q, want %q", path, h, got, want)
			}
		}
	}
	for _, path := range []string{"/ui", "/"} {
		bare, err := http.NewRequest(http.MethodGet, srv.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		redirect, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(bare)
		if err != nil {
			t.Fatal(err)
		}
		redirect.Body.Close()
		if redirect.StatusCode != http.StatusSeeOther || redirect.Header.Get("Location") != "/ui/" || redirect.Header.Get("X-Content-Type-Options") != "nosniff" ||
			!strings.HasPrefix(redirect.Header.Get("Content-Security-Policy"), "default-src 'none'") {
			t.Errorf("GET %s = %d to %q with headers %v, want 303 to /ui/ with the security headers", path, redirect.StatusCode, redirect.Header.Get("Location"), redirect.Header)
		}
	}
	cookies := newBrowser(t, srv.URL)
	resp := cookies.get("/ui/signin")
	if resp.status != http.StatusOK {
		t.Fatalf("GET /ui/signin = %d", resp.status)
	}
	tokenForm := url.Values{"csrf": {resp.csrf(t)}, "token": {srv.CreateToken(t, "gina", grant("**", store.LevelRead))}}
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/ui/signin/token", strings.NewReader(tokenForm.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	noFollow := &http.Client{Jar: cookies.c.Jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	r, err := noFollow.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	var session *http.Cookie
	for _, c := range r.Cookies() {
		if c.Name == "teammemd_ui" {
			session = c
		}
	}
	if session == nil || !session.HttpOnly || session.SameSite != http.SameSiteLaxMode || session.Secure {
		t.Errorf("session cookie over loopback HTTP = %+v, want HttpOnly, SameSite=Lax, not Secure", session)
	}
}

// TestPagesRateLimited checks that a signed-in person's pages spend the
// API's per-subject rate limit.
func TestPagesRateLimited(t *testing.T) {
	srv := startServer(t, servertest.WithRateLimit(server.RateLimit{RequestsPerSecond: 0.001, Burst: 2, FailedAuthPerSecond: -1}))
	b := signedIn(t, srv, "vic", grant("**", store.LevelRead)) // the page after signing in spends one
	if p := b.get("/ui/"); p.status != http.StatusOK {
		t.Fatalf("second page = %d, want 200", p.status)
	}
	if p := b.get("/ui/"); p.status != http.StatusTooManyRequests || !strings.Contains(p.body, "too many requests") {
		t.Errorf("third page = %d, want 429 saying why", p.status)
	}
}
