package login_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/auth/authtest"
	"github.com/teammemd/teammemd/sync/login"
)

// world is a fake identity provider that approves every device login as
// a@acme.com, its clock, and a client for it.
type world struct {
	clock  *authtest.Clock
	idp    *authtest.IdP
	client *http.Client
}

func newWorld(t *testing.T) world {
	w := world{clock: authtest.NewClock(), client: authtest.Client(t)}
	w.idp = authtest.NewIdP(t, w.clock)
	w.idp.OnDeviceCode = func(code string) {
		if err := w.idp.Approve(code, authtest.User{Sub: "u1", Email: "a@acme.com", EmailVerified: true}); err != nil {
			t.Error(err)
		}
	}
	return w
}

// login logs in to server with a device login and keeps it in s.
func (w world) login(t *testing.T, s login.Store, server string) login.Record {
	t.Helper()
	ctx := context.Background()
	l, err := login.Provider(ctx, w.client, server, api.Discovery{Login: &api.Login{Issuer: w.idp.URL, ClientID: w.idp.ClientID}}, login.Config{})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := login.Device(ctx, w.client, server, l, io.Discard, w.clock.Now)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Who != "a@acme.com" || !rec.Expiry.Equal(w.clock.Now().Add(time.Hour).Truncate(time.Second)) {
		t.Errorf("Device() = who %q, expiry %v, want a@acme.com expiring in an hour", rec.Who, rec.Expiry)
	}
	if _, err := s.Keep(context.Background(), rec); err != nil {
		t.Fatal(err)
	}
	return rec
}

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
	w := newWorld(t)
	rec := w.login(t, s, server)
	idp, clock, client := w.idp, w.clock, w.client
	t.Cleanup(func() { s.Remove(context.Background(), server) })
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

// TestRefreshWithoutIDToken refreshes a login at a provider that answers
// refreshes without an ID token: the login keeps sending its last ID
// token, never the opaque access token, refreshes no more while that is
// good, and once it has expired says to log in again.
func TestRefreshWithoutIDToken(t *testing.T) {
	w := newWorld(t)
	w.idp.RefreshWithoutIDToken = true
	const server = "http://127.0.0.1:1"
	s := login.Store{Dir: t.TempDir()}
	rec := w.login(t, s, server)
	clock, ctx := w.clock, context.Background()
	src, err := login.NewSource(s, server, w.client, clock.Now)
	if err != nil {
		t.Fatal(err)
	}
	refreshToken := func() string {
		got, err := s.Load(server)
		if err != nil {
			t.Fatal(err)
		}
		return got.RefreshToken
	}

	clock.Advance(time.Hour - login.RefreshBefore/2) // due for a refresh, the ID token still good
	token := func(when string) {
		t.Helper()
		if tok, err := src.TokenContext(ctx); err != nil || tok.AccessToken != rec.IDToken {
			t.Fatalf("Token() %s = %v, %v, want the ID token from the login", when, tok, err)
		}
	}
	token("when due for a refresh")
	refreshed := refreshToken()
	if refreshed == rec.RefreshToken {
		t.Error("the login was not refreshed when it was due")
	}
	token("again")
	if refreshToken() != refreshed {
		t.Error("the login was refreshed again while its kept ID token was good")
	}

	clock.Advance(time.Hour)
	tok, err := src.TokenContext(ctx)
	if !errors.Is(err, login.ErrExpired) || !strings.Contains(fmt.Sprint(err), "teammemd login --server "+server) {
		t.Errorf("Token() after the ID token expired = %v, %v, want ErrExpired saying to log in again", tok, err)
	}
	if refreshToken() == refreshed {
		t.Error("the expired login was not refreshed again before giving up")
	}
}

// A logout or a new login while a refresh is in flight is not undone by
// it: Remove and Keep wait for the refresh's lock, so the refresh saves
// first and they act on what it saved.
func TestLogoutAndLoginWaitForARefresh(t *testing.T) {
	for _, tt := range []struct {
		name string
		act  func(s login.Store, rec login.Record) error
		want string // the login's bearer afterwards; "" for none
	}{
		{"logout", func(s login.Store, rec login.Record) error {
			_, err := s.Remove(context.Background(), rec.Server)
			return err
		}, ""},
		{"login", func(s login.Store, rec login.Record) error {
			rec.AccessToken, rec.IDToken = "new-login", "new-login"
			_, err := s.Keep(context.Background(), rec)
			return err
		}, "new-login"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t)
			const server = "http://127.0.0.1:1"
			s := login.Store{Dir: t.TempDir()}
			rec := w.login(t, s, server)
			w.clock.Advance(2 * time.Hour)
			inFlight, release := make(chan struct{}), make(chan struct{})
			var once sync.Once
			w.idp.OnRefresh = func() {
				once.Do(func() { close(inFlight) })
				<-release
			}
			src, err := login.NewSource(s, server, w.client, w.clock.Now)
			if err != nil {
				t.Fatal(err)
			}
			var wg sync.WaitGroup
			wg.Go(func() { _, _ = src.Token() })
			<-inFlight
			acted := make(chan error, 1)
			go func() { acted <- tt.act(s, rec) }()
			// Without the lock the act ends while the refresh is held;
			// with it, it waits, and the refresh is let go meanwhile.
			select {
			case err := <-acted:
				acted <- err
			case <-time.After(200 * time.Millisecond):
			}
			close(release)
			wg.Wait()
			if err := <-acted; err != nil {
				t.Fatalf("%s during a refresh: %v", tt.name, err)
			}
			got, err := s.Load(server)
			switch {
			case tt.want == "" && !errors.Is(err, login.ErrNotLoggedIn):
				t.Errorf("after a logout during a refresh: Load error = %v, want ErrNotLoggedIn: the refresh saved the login again", err)
			case tt.want != "" && (err != nil || got.Bearer() != tt.want):
				t.Errorf("after a login during a refresh: Load error = %v, bearer is the new login's: %v; want the new login", err, got.Bearer() == tt.want)
			}
		})
	}
}
