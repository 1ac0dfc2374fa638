package checkup

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/server/servertest"
	"github.com/teammemd/teammemd/server/store"
)

// A real teammemd server answers, speaks the protocol, takes its token,
// refuses a wrong one, and refuses a repo the token has no grant for.
func TestProberTeammemdServer(t *testing.T) {
	srv := servertest.Start(t)
	p := NewProber("teammemd/test doctor")
	defer p.Close()
	ctx := context.Background()

	r, date := p.Reachable(ctx, srv.URL)
	if r.Outcome != OK || date.IsZero() {
		t.Fatalf("Reachable = %+v, date %v; want ok with the server's Date", r, date)
	}
	if r := p.Identity(ctx, srv.URL); r.Outcome != OK {
		t.Fatalf("Identity = %+v, want ok", r)
	}
	if r := p.Auth(ctx, srv.URL, srv.Token, TokenFrom{}); r.Outcome != OK {
		t.Fatalf("Auth(good token) = %+v, want ok", r)
	}
	r = p.Auth(ctx, srv.URL, "tmd_not-a-token", TokenFrom{})
	if r.Outcome != Fail || !strings.Contains(r.Detail, "refused the token") || !strings.Contains(r.Fix, "token create") {
		t.Fatalf("Auth(bad token) = %+v, want a refusal with the fix", r)
	}
	r = p.Auth(ctx, srv.URL, "tmd_not-a-token", TokenFrom{Env: "TEAMMEMD_TOKEN"})
	if r.Outcome != Fail || !strings.Contains(r.Detail, "refused the token from $TEAMMEMD_TOKEN") || !strings.Contains(r.Fix, "set TEAMMEMD_TOKEN to a valid token") {
		t.Fatalf("Auth(bad token from the environment) = %+v, want a refusal naming $TEAMMEMD_TOKEN with its fix", r)
	}
	narrow := srv.CreateToken(t, "narrow", store.Grant{Pattern: "acme/app", Level: store.LevelRead})
	status, msg, err := p.Probe(ctx, srv.URL, "other/repo", narrow)
	if err != nil || status != http.StatusForbidden || msg == "" {
		t.Fatalf("Probe(no grant) = %d %q %v, want 403 with the server's message", status, msg, err)
	}
	// A granted repo that holds nothing yet is 404, not a refusal.
	if status, _, err := p.Probe(ctx, srv.URL, "acme/app", narrow); err != nil || status != http.StatusNotFound {
		t.Fatalf("Probe(granted, empty repo) = %d %v, want 404", status, err)
	}
}

// A web server that is not teammemd, one that redirects, and a port no one
// listens on each fail with what to do.
func TestProberOtherServers(t *testing.T) {
	p := NewProber("teammemd/test doctor")
	defer p.Close()
	ctx := context.Background()

	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<html>welcome</html>"))
	}))
	defer page.Close()
	if r := p.Identity(ctx, page.URL); r.Outcome != Fail || !strings.Contains(r.Detail, "is not a teammemd server") ||
		!strings.Contains(r.Detail, "text/html") {
		t.Fatalf("Identity(web page) = %+v, want a failure naming what answered", r)
	}

	moved := httptest.NewServer(http.RedirectHandler("https://elsewhere.example/", http.StatusMovedPermanently))
	defer moved.Close()
	if r := p.Identity(ctx, moved.URL); r.Outcome != Fail || !strings.Contains(r.Detail, "redirected") ||
		!strings.Contains(r.Detail, "https://elsewhere.example/") {
		t.Fatalf("Identity(redirect) = %+v, want the redirect reported, not followed", r)
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String()
	ln.Close()
	r, date := p.Reachable(ctx, closed)
	if r.Outcome != Fail || !date.IsZero() || !strings.Contains(r.Fix, "start the server") {
		t.Fatalf("Reachable(closed port) = %+v, %v; want a failure with the fix to start the server", r, date)
	}
}
