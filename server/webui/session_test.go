package webui_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/auth"
	"github.com/teammemd/teammemd/server/store"
)

// sessionHash is the store's key of b's session.
func (b *browser) sessionHash(t *testing.T) string {
	t.Helper()
	u, _ := url.Parse(b.base + "/ui/")
	for _, c := range b.c.Jar.Cookies(u) {
		if c.Name == "teammemd_ui" {
			sum := sha256.Sum256([]byte(c.Value))
			return hex.EncodeToString(sum[:])
		}
	}
	t.Fatal("browser holds no session cookie")
	return ""
}

// signedOut reports whether p is the sign-in page b was sent to.
func signedOut(p page) bool {
	return p.status == http.StatusOK && strings.Contains(p.url, "/ui/signin") && strings.Contains(p.body, "Sign in")
}

func TestSessionExpiry(t *testing.T) {
	srv := startServer(t)
	b := signedIn(t, srv, "hana", grant("**", store.LevelRead))
	ctx := context.Background()
	ws, err := srv.Store.WebSession(ctx, b.sessionHash(t), time.Now())
	if err != nil {
		t.Fatalf("WebSession(after sign-in) = %v", err)
	}
	if ttl := ws.Expires.Sub(ws.Created); ttl != 12*time.Hour {
		t.Errorf("session lasts %s, want the default 12h", ttl)
	}
	ws.Expires = time.Now().Add(-time.Second)
	if err := srv.Store.PutWebSession(ctx, ws); err != nil {
		t.Fatal(err)
	}
	if p := b.get("/ui/"); !signedOut(p) {
		t.Errorf("GET /ui/ with an expired session = %d at %s, want the sign-in page", p.status, p.url)
	}
	if p := b.post("/ui/signout", url.Values{}); p.status != http.StatusForbidden {
		t.Errorf("POST with an expired session = %d, want 403", p.status)
	}
}

func TestSignOut(t *testing.T) {
	srv := startServer(t)
	b := signedIn(t, srv, "ivan", grant("**", store.LevelRead))
	hash := b.sessionHash(t)
	p := b.post("/ui/signout", url.Values{"csrf": {b.get("/ui/").csrf(t)}})
	if !signedOut(p) {
		t.Fatalf("sign out = %d at %s, want the sign-in page", p.status, p.url)
	}
	if _, err := srv.Store.WebSession(context.Background(), hash, time.Now()); err == nil {
		t.Error("the session is still in the store after signing out")
	}
}

// TestRevokedTokenEndsSession checks that a session signed in with a token
// ends when the token is revoked.
func TestRevokedTokenEndsSession(t *testing.T) {
	srv := startServer(t)
	b := newBrowser(t, srv.URL)
	token := srv.CreateToken(t, "judy", grant("**", store.LevelRead))
	if p := b.signIn(token); p.status != http.StatusOK {
		t.Fatalf("sign in = %d", p.status)
	}
	rec, err := srv.Store.TokenByHash(context.Background(), auth.HashToken(token))
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Store.RevokeToken(context.Background(), rec.ID, time.Now()); err != nil {
		t.Fatal(err)
	}
	if p := b.get("/ui/"); !signedOut(p) {
		t.Errorf("GET /ui/ after the token was revoked = %d at %s, want the sign-in page", p.status, p.url)
	}
}

func TestTokenSignInRefused(t *testing.T) {
	srv := startServer(t)
	b := newBrowser(t, srv.URL)
	p := b.signIn("tmd_NOTATOKEN")
	if p.status != http.StatusUnauthorized || !strings.Contains(p.body, "invalid or revoked token") {
		t.Errorf("sign in with a bad token = %d %q, want 401 saying why", p.status, p.body)
	}
	if p := b.get("/ui/"); !signedOut(p) {
		t.Errorf("GET /ui/ after a refused sign-in = %d at %s, want the sign-in page", p.status, p.url)
	}
}

// TestSignInGoesBack checks that signing in leads to the page asked for,
// and never off the view.
func TestSignInGoesBack(t *testing.T) {
	srv := startServer(t)
	put(t, srv, srv.Token, "acme/app", map[string]string{"a.md": "one"})
	b := newBrowser(t, srv.URL)
	form := b.get("/ui/repo?repo=acme/app")
	token := srv.CreateToken(t, "kim", grant("**", store.LevelRead))
	next := form.url[strings.Index(form.url, "next=")+5:]
	nextPath, _ := url.QueryUnescape(next)
	p := b.post("/ui/signin/token", url.Values{"csrf": {form.csrf(t)}, "token": {token}, "next": {nextPath}})
	if !strings.HasSuffix(p.url, "/ui/repo?repo=acme/app") {
		t.Errorf("sign in from a repo page lands at %s, want the repo page", p.url)
	}
	for _, evil := range []string{"https://evil.example/", "//evil.example/ui/", "/metrics", "/\\evil.example"} {
		c := newBrowser(t, srv.URL)
		f := c.get("/ui/signin")
		p := c.post("/ui/signin/token", url.Values{"csrf": {f.csrf(t)}, "token": {token}, "next": {evil}})
		if p.url != srv.URL+"/ui/" {
			t.Errorf("sign in with next=%q lands at %s, want %s/ui/", evil, p.url, srv.URL)
		}
	}
}

// TestSignInAgainEndsOldSession checks that signing in again, as someone
// else, ends the session the browser held.
func TestSignInAgainEndsOldSession(t *testing.T) {
	srv := startServer(t)
	b := signedIn(t, srv, "wes", grant("**", store.LevelRead))
	first := b.sessionHash(t)
	if p := b.signIn(srv.CreateToken(t, "xia", grant("**", store.LevelRead))); !strings.Contains(p.body, "xia") {
		t.Fatalf("second sign-in = %d, want signed in as xia", p.status)
	}
	if _, err := srv.Store.WebSession(context.Background(), first, time.Now()); err == nil {
		t.Error("the first session is still in the store after signing in again")
	}
	if b.sessionHash(t) == first {
		t.Error("the browser kept its session id across sign-ins")
	}
}
