package server_test

import (
	"net/http"
	"testing"

	"github.com/teammemd/teammemd/server"
	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/servertest"
)

// TestFailedAuthLimit: the requests of one client address whose credential
// is refused spend its budget of failed authentications, and once it is
// spent the address gets 429 with Retry-After, whatever it sends; accepted
// requests spend nothing, and another address keeps its own budget. The
// addresses are those a trusted proxy on loopback names.
func TestFailedAuthLimit(t *testing.T) {
	s := servertest.Start(t, servertest.WithConfig(func(c *server.Config) {
		c.TrustedProxies = []string{"127.0.0.1", "::1"}
		c.RateLimit.FailedAuthPerSecond, c.RateLimit.FailedAuthBurst = 0.001, 3
	}))
	from := func(client, token string) reply {
		t.Helper()
		return do(t, s.URL, req{repo: repo, token: token, headers: map[string]string{"X-Forwarded-For": client}})
	}
	const attacker, neighbour = "203.0.113.9", "203.0.113.10"
	for i := range 50 {
		if r := from(attacker, s.Token); r.status != http.StatusNotFound {
			t.Fatalf("good request %d = %d, want 404", i, r.status)
		}
	}
	for i := range 3 {
		if r := from(attacker, "tmd_unknown"); r.status != http.StatusUnauthorized {
			t.Fatalf("bad request %d within the budget = %d, want 401", i, r.status)
		}
	}
	for _, token := range []string{"tmd_unknown", "", s.Token} {
		r := from(attacker, token)
		if r.status != http.StatusTooManyRequests || r.errorCode() != api.CodeRateLimited || r.header.Get("Retry-After") == "" {
			t.Errorf("request with %q after the budget = %d %q Retry-After %q, want 429 %q with Retry-After",
				token, r.status, r.errorCode(), r.header.Get("Retry-After"), api.CodeRateLimited)
		}
	}
	if r := from(neighbour, s.Token); r.status != http.StatusNotFound {
		t.Errorf("another address = %d, want 404 (its own budget)", r.status)
	}
}
