package auth_test

import (
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/teammemd/teammemd/server/auth"
	"github.com/teammemd/teammemd/server/auth/authtest"
)

// TestFailedChecksCached sends one bad GitHub token and one bad Claude
// token many times: the service is asked once for each while the failure is
// cached, and again once the failure's TTL has passed, so a token that has
// become good since is then accepted.
func TestFailedChecksCached(t *testing.T) {
	clock := authtest.NewClock()
	gh := authtest.NewGitHub(t)
	prof := authtest.NewClaudeProfile(t)
	cfg := auth.Config{
		GitHub: auth.GitHubConfig{Enabled: true, APIURL: gh.URL, RepoHost: auth.GitHubHost},
		Claude: auth.ClaudeConfig{Enabled: true, ProfileURL: prof.URL},
		Grants: []auth.GrantRule{grant("email:*@acme.com", "write", "acme/**")},
	}
	srv, _ := startWith(t, cfg, clock)
	tests := []struct {
		name, bearer string
		calls        *atomic.Int64
		makeGood     func()
	}{
		{"GitHub", "ghp_notYetKnown000000000000000000000000", &gh.Calls,
			func() { gh.AddUser("ghp_notYetKnown000000000000000000000000", "octocat") }},
		{"Claude", "sk-ant-oat01-notYetKnown", &prof.Calls,
			func() { prof.Add("sk-ant-oat01-notYetKnown", authtest.Account{UUID: "acc-1", Email: "alice@acme.com"}) }},
	}
	const sends = 50
	for _, tt := range tests {
		before := tt.calls.Load()
		for range sends {
			want(t, tt.name+" unknown token", call(t, srv, http.MethodGet, "acme%2Fapp", tt.bearer), 401, auth.ReasonRejected, "")
		}
		if got := tt.calls.Load() - before; got != 1 {
			t.Errorf("%s: %d sends of one bad token made %d calls, want 1", tt.name, sends, got)
		}
		tt.makeGood()
		want(t, tt.name+" good now, failure still cached", call(t, srv, http.MethodGet, "acme%2Fapp", tt.bearer), 401, auth.ReasonRejected, "")
	}
	clock.Advance(auth.DefaultFailureCacheTTL)
	for _, tt := range tests {
		before := tt.calls.Load()
		got := call(t, srv, http.MethodGet, "acme%2Fapp", tt.bearer)
		if got.status == 401 {
			t.Errorf("%s token made good, after the failure TTL = %d, want it accepted", tt.name, got.status)
		}
		if n := tt.calls.Load() - before; n == 0 {
			t.Errorf("%s token after the failure TTL made no call, want it checked again", tt.name)
		}
	}
}
