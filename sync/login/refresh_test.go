package login_test

import (
	"context"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/auth/authtest"
	"github.com/teammemd/teammemd/sync/login"
)

// TestConcurrentRefresh has two processes' sources refresh one login at
// once against a provider that rotates refresh tokens: the lock lets one
// refresh and the other read its result, so neither spends a used token.
func TestConcurrentRefresh(t *testing.T) {
	refreshTogether(t, login.Store{Dir: t.TempDir()}, "http://127.0.0.1:1")
}

// refreshTogether logs in to server with a device login, keeps it in s,
// lets it expire and has two sources refresh it at once, then a third
// source made afterwards read it. All three must get one new token from a
// single refresh; it returns that token and the login before the refresh.
func refreshTogether(t *testing.T, s login.Store, server string) (string, login.Record) {
	t.Helper()
	clock := authtest.NewClock()
	idp := authtest.NewIdP(t, clock)
	idp.OnDeviceCode = func(code string) {
		if err := idp.Approve(code, authtest.User{Sub: "u1", Email: "a@acme.com", EmailVerified: true}); err != nil {
			t.Error(err)
		}
	}
	client := authtest.Client(t)
	ctx := context.Background()
	l, err := login.Provider(ctx, client, server, api.Discovery{Login: &api.Login{Issuer: idp.URL, ClientID: idp.ClientID}}, login.Config{})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := login.Device(ctx, client, server, l, io.Discard, clock.Now)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Who != "a@acme.com" || !rec.Expiry.Equal(clock.Now().Add(time.Hour).Truncate(time.Second)) {
		t.Errorf("Device() = who %q, expiry %v, want a@acme.com expiring in an hour", rec.Who, rec.Expiry)
	}
	if _, err := s.Keep(rec); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Remove(server) })
	clock.Advance(2 * time.Hour)
	toks := make([]string, 3)
	var wg sync.WaitGroup
	for i := range toks {
		src, err := login.NewSource(s, server, client, clock.Now)
		if err != nil {
			t.Fatal(err)
		}
		get := func() {
			if tok, err := src.Token(); err != nil {
				t.Errorf("source %d: Token() error = %v", i, err)
			} else {
				toks[i] = tok.AccessToken
			}
		}
		if i < 2 {
			wg.Go(get)
			continue
		}
		wg.Wait()
		get()
	}
	if toks[0] != toks[1] || toks[1] != toks[2] || toks[0] == rec.Bearer() || idp.RefreshTokens() != 1 {
		t.Errorf("sources sharing a login got different or stale tokens (%d refresh tokens left), want one refresh all share", idp.RefreshTokens())
	}
	return toks[0], rec
}
