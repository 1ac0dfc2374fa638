package auth_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/auth"
	"github.com/teammemd/teammemd/server/auth/authtest"
)

// TestOIDCForgedTokensFetchKeysOnce sends tokens the provider never signed:
// one naming its key fetches nothing, and tokens naming keys it does not
// know fetch the key set at most once per refresh interval. A real login
// works throughout.
func TestOIDCForgedTokensFetchKeysOnce(t *testing.T) {
	clock := authtest.NewClock()
	idp := authtest.NewIdP(t, clock)
	cfg := auth.Config{
		OIDC:   auth.OIDCConfig{Enabled: true, Issuer: idp.URL, ClientID: idp.ClientID},
		Grants: []auth.GrantRule{grant("group:eng", "write", "acme/**")},
	}
	srv, _ := startWith(t, cfg, clock)
	alice := authtest.User{Sub: "u-alice", Groups: []string{"eng"}}
	login := func(name string) {
		t.Helper()
		want(t, name, call(t, srv, http.MethodGet, "acme%2Fapp", idp.IDToken(alice, idp.ClientID, time.Hour)), 404, "", "")
	}
	login("a real login")
	const forged = 200
	fetches := idp.KeyFetches.Load()
	for range forged {
		want(t, "forged with the provider's key id", call(t, srv, http.MethodGet, "acme%2Fapp", idp.Forge(alice, idp.KeyID())), 401, auth.ReasonInvalid, "")
	}
	if got := idp.KeyFetches.Load() - fetches; got != 0 {
		t.Errorf("%d forged tokens naming the provider's key fetched the key set %d times, want 0", forged, got)
	}
	for round := range 2 {
		clock.Advance(auth.DefaultJWKSRefreshInterval)
		fetches = idp.KeyFetches.Load()
		for i := range forged {
			got := call(t, srv, http.MethodGet, "acme%2Fapp", idp.Forge(alice, fmt.Sprintf("unknown-%d-%d", round, i)))
			if got.status != 401 && got.status != 503 {
				t.Errorf("forged with an unknown key id = %d, want 401 or 503", got.status)
			}
		}
		if got := idp.KeyFetches.Load() - fetches; got != 1 {
			t.Errorf("round %d: %d forged tokens naming unknown keys fetched the key set %d times within one refresh interval, want 1", round, forged, got)
		}
		login("a real login after forged tokens")
	}
	if got := idp.Discoveries.Load(); got != 1 {
		t.Errorf("the provider was discovered %d times, want 1", got)
	}
}
