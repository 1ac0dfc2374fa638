package auth_test

import (
	"fmt"
	"math"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server"
	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/auth"
	"github.com/teammemd/teammemd/server/auth/authtest"
	"github.com/teammemd/teammemd/server/servertest"
)

// floodSize is how many forged credentials of each kind TestForgedFlood
// sends.
const floodSize = 1000

// TestForgedFlood sends floodSize forged credentials of each kind (JWTs
// naming the provider's key with a bad signature, JWTs naming unknown
// keys, claude.ai and GitHub tokens) from one client address, through a
// trusted proxy on loopback that names it in X-Forwarded-For, with the
// server's default bounds. The identity services see no more calls than
// the address's budget of failed authentications, and real users at other
// addresses log in afterwards.
func TestForgedFlood(t *testing.T) {
	f := startFlood(t)
	alice := authtest.User{Sub: "u-alice", Email: "alice@acme.com", EmailVerified: true, Groups: []string{"eng"}}
	forged := []func(i int) string{
		func(int) string { return f.idp.Forge(alice, f.idp.KeyID()) },
		func(i int) string { return f.idp.Forge(alice, fmt.Sprintf("unknown-%d", i)) },
		func(i int) string { return fmt.Sprintf("sk-ant-oat01-forged%06d", i) },
		func(i int) string { return fmt.Sprintf("ghp_forged%030d", i) },
	}
	bearers := make(chan string)
	go func() {
		defer close(bearers)
		for i := range floodSize {
			for _, forge := range forged {
				bearers <- forge(i)
			}
		}
	}()
	start := time.Now()
	statuses := f.sendAll(t, bearers, "203.0.113.66")
	elapsed := time.Since(start)

	calls := f.calls()
	budget := server.DefaultFailedAuthBurst + int(math.Ceil(server.DefaultFailedAuthPerSecond*elapsed.Seconds()))
	t.Logf("%d forged credentials in %s: answers %v; calls: %d discovery, %d key set, %d GitHub, %d claude.ai; budget %d",
		len(forged)*floodSize, elapsed.Round(time.Millisecond), statuses, f.idp.Discoveries.Load(), f.idp.KeyFetches.Load(),
		f.gh.Calls.Load(), f.prof.Calls.Load(), budget)
	if calls > int64(budget) {
		t.Errorf("%d forged credentials made %d calls to the identity services, want at most %d", len(forged)*floodSize, calls, budget)
	}
	if statuses[http.StatusTooManyRequests] < len(forged)*floodSize-budget {
		t.Errorf("forged credentials answered %v, want all but %d answered 429", statuses, budget)
	}
	f.realUsersLogIn(t, alice)
}

// flood is a server with every mode on and the fakes it asks.
type flood struct {
	srv   *servertest.Server
	idp   *authtest.IdP
	gh    *authtest.GitHub
	prof  *authtest.ClaudeProfile
	clock *authtest.Clock
}

func startFlood(t *testing.T) *flood {
	f := &flood{clock: authtest.NewClock(), gh: authtest.NewGitHub(t), prof: authtest.NewClaudeProfile(t)}
	f.idp = authtest.NewIdP(t, f.clock)
	cfg := auth.Config{
		OIDC:   auth.OIDCConfig{Enabled: true, Issuer: f.idp.URL, ClientID: f.idp.ClientID},
		GitHub: auth.GitHubConfig{Enabled: true, APIURL: f.gh.URL, RepoHost: auth.GitHubHost},
		Claude: auth.ClaudeConfig{Enabled: true, ProfileURL: f.prof.URL},
		Grants: []auth.GrantRule{grant("group:eng", "write", "acme/**"), grant("email:*@acme.com", "write", "acme/**")},
	}
	f.srv = servertest.Start(t, servertest.WithAuth(cfg, auth.Options{HTTPClient: authtest.Client(t), Now: f.clock.Now}),
		servertest.WithConfig(func(c *server.Config) {
			c.TrustedProxies = []string{"127.0.0.1"}
			c.RateLimit.FailedAuthPerSecond, c.RateLimit.FailedAuthBurst = 0, 0 // the defaults
		}))
	return f
}

// calls counts every call the identity services have answered.
func (f *flood) calls() int64 {
	return f.idp.Discoveries.Load() + f.idp.KeyFetches.Load() + f.gh.Calls.Load() + f.prof.Calls.Load()
}

// sendAll reads acme/app with every bearer, from client (the proxy's
// X-Forwarded-For), eight at a time, and counts the answers by status.
func (f *flood) sendAll(t *testing.T, bearers <-chan string, client string) map[int]int {
	var mu sync.Mutex
	statuses := map[int]int{}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for b := range bearers {
				status := f.get(t, b, client)
				mu.Lock()
				statuses[status]++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return statuses
}

// get reads acme/app with bearer from client and returns the status.
func (f *flood) get(t *testing.T, bearer, client string) int {
	req, err := http.NewRequest(http.MethodGet, f.srv.URL+api.Path+"?repo=acme%2Fapp", nil)
	if err != nil {
		t.Error(err)
		return 0
	}
	req.Header.Set("Authorization", "Bearer "+bearer)
	req.Header.Set("X-Forwarded-For", client)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Error(err)
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

// realUsersLogIn checks that a real user of each mode, each at an address
// of their own, is let in.
func (f *flood) realUsersLogIn(t *testing.T, alice authtest.User) {
	const ghTok, claudeTok = "ghp_realUser000000000000000000000000000", "sk-ant-oat01-realUser"
	f.gh.AddUser(ghTok, "octocat")
	f.gh.Grant("octocat", "acme/app", "write")
	f.prof.Add(claudeTok, authtest.Account{UUID: "acc-1", Email: "bob@acme.com"})
	users := []struct{ name, bearer, client string }{
		{"OIDC login", f.idp.IDToken(alice, f.idp.ClientID, time.Hour), "198.51.100.1"},
		{"GitHub token", ghTok, "198.51.100.2"},
		{"Claude account", claudeTok, "198.51.100.3"},
	}
	for _, u := range users {
		if got := f.get(t, u.bearer, u.client); got != http.StatusNotFound {
			t.Errorf("%s after the flood = %d, want 404 (let in, no team memory yet)", u.name, got)
		}
	}
}
