package auth_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/teammemd/teammemd/server/auth"
	"github.com/teammemd/teammemd/server/store"
)

// watchedTokens counts the token lookups that reach the real store, holds
// each until gate is closed (when gate is set), and fails the revocation
// check while failing is set.
type watchedTokens struct {
	store.Tokens
	gate    chan struct{}
	lookups atomic.Int32
	failing atomic.Bool
}

func (w *watchedTokens) TokenByHash(ctx context.Context, hash string) (store.Token, error) {
	w.lookups.Add(1)
	if w.gate != nil {
		<-w.gate
	}
	return w.Tokens.TokenByHash(ctx, hash)
}

func (w *watchedTokens) TokenCounts(ctx context.Context) (store.TokenCounts, error) {
	if w.failing.Load() {
		return store.TokenCounts{}, errors.New("store unreachable")
	}
	return w.Tokens.TokenCounts(ctx)
}

// newWatched creates a token for subject in st and returns its secret and
// ID.
func newWatched(t *testing.T, st store.Tokens, subject string) (secret, id string) {
	t.Helper()
	secret, rec, err := auth.NewTokenRecord(subject, []store.Grant{{Pattern: "acme/*", Level: store.LevelWrite}}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := st.CreateToken(context.Background(), rec); err != nil {
		t.Fatal(err)
	}
	return secret, rec.ID
}

// watch checks c's revocations now and every RevocationCheck, as a
// server does, until the test's bubble ends, and returns once the first
// check is made.
func watch(t *testing.T, c interface {
	CheckRevocations(context.Context) error
}) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(auth.RevocationCheck)
		defer tick.Stop()
		for {
			_ = c.CheckRevocations(ctx) // a failure is the test's to set up
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	})
	t.Cleanup(func() {
		cancel()
		wg.Wait()
	})
	synctest.Wait()
}

func wantAccepted(t *testing.T, a auth.Authenticator, secret, when string) {
	t.Helper()
	if p, err := a.Authenticate(context.Background(), secret); err != nil || p.Subject != "ann" {
		t.Fatalf("Authenticate(%s) = %q, %v, want ann", when, p.Subject, err)
	}
}

func wantRefused(t *testing.T, a auth.Authenticator, secret, when string) {
	t.Helper()
	if _, err := a.Authenticate(context.Background(), secret); err == nil {
		t.Errorf("Authenticate(%s) error = nil, want a refusal", when)
	}
}

// TestWatchedTokenNeedsNoLookup checks that while the revocation watch
// finds no revocation, a token looked up once is not looked up again, as
// a daemon saving after a pause needs, both on the token authenticator and
// on the auth modes that hold one: without the watch, each request more
// than CacheTTL after the lookup reads the store.
func TestWatchedTokenNeedsNoLookup(t *testing.T) {
	for _, kind := range []string{"tokens", "modes"} {
		t.Run(kind, func(t *testing.T) {
			st := openTokens(t)
			synctest.Test(t, func(t *testing.T) {
				w := &watchedTokens{Tokens: st}
				secret, _ := newWatched(t, st, "ann")
				a := watchedAuthenticator(t, kind, w)
				for i := range 5 {
					wantAccepted(t, a, secret, "after a pause")
					time.Sleep(3 * auth.CacheTTL)
					if i == 0 {
						newWatched(t, st, "bob") // a new token revokes nothing
					}
				}
				if got := w.lookups.Load(); got != 1 {
					t.Errorf("5 requests %v apart looked the token up %d times, want 1", 3*auth.CacheTTL, got)
				}
			})
		})
	}
}

// watchedAuthenticator is a token authenticator ("tokens") or the auth
// modes with static tokens on ("modes") over w, its revocations watched.
func watchedAuthenticator(t *testing.T, kind string, w store.Tokens) auth.Authenticator {
	t.Helper()
	if kind == "tokens" {
		a := auth.NewTokenAuthenticator(w)
		watch(t, a)
		return a
	}
	m, err := auth.New(auth.Config{}, w, auth.Options{})
	if err != nil {
		t.Fatal(err)
	}
	watch(t, m)
	return m
}

// TestWatchedRevocationTakesEffect checks that a token trusted through the
// watch is refused within RevocationCheck of its revocation.
func TestWatchedRevocationTakesEffect(t *testing.T) {
	st := openTokens(t)
	synctest.Test(t, func(t *testing.T) {
		secret, id := newWatched(t, st, "ann")
		a := auth.NewTokenAuthenticator(st)
		watch(t, a)
		wantAccepted(t, a, secret, "first")
		time.Sleep(3*auth.CacheTTL + auth.RevocationCheck/2)
		wantAccepted(t, a, secret, "trusted through the watch")
		if err := st.RevokeToken(context.Background(), id, time.Now()); err != nil {
			t.Fatal(err)
		}
		time.Sleep(auth.RevocationCheck)
		wantRefused(t, a, secret, "one check after its revocation")
	})
}

// TestUnansweredChecksTrustForTTL checks that while the store does not
// answer the revocation check, a cached token is trusted for CacheTTL
// after the last check that answered and then looked up again, so a
// revocation still takes effect within CacheTTL.
func TestUnansweredChecksTrustForTTL(t *testing.T) {
	st := openTokens(t)
	synctest.Test(t, func(t *testing.T) {
		w := &watchedTokens{Tokens: st}
		secret, id := newWatched(t, st, "ann")
		a := auth.NewTokenAuthenticator(w)
		watch(t, a)
		wantAccepted(t, a, secret, "first")
		time.Sleep(2*auth.CacheTTL + auth.RevocationCheck/4) // between two checks
		w.failing.Store(true)
		if err := st.RevokeToken(context.Background(), id, time.Now()); err != nil {
			t.Fatal(err)
		}
		time.Sleep(auth.CacheTTL)
		wantRefused(t, a, secret, "revoked, checks failing, CacheTTL later")
		if got := w.lookups.Load(); got != 2 {
			t.Errorf("lookups = %d, want 2 (the first, then once the last answered check was CacheTTL old)", got)
		}
	})
}

// TestLookupDuringCheckTrustedForTTL checks that a token looked up while
// a check found a revocation is trusted only for CacheTTL: the lookup may
// have read the store before the revocation the check found.
func TestLookupDuringCheckTrustedForTTL(t *testing.T) {
	st := openTokens(t)
	synctest.Test(t, func(t *testing.T) {
		w := &watchedTokens{Tokens: st, gate: make(chan struct{})}
		secret, _ := newWatched(t, st, "ann")
		_, other := newWatched(t, st, "bob")
		a := auth.NewTokenAuthenticator(w)
		watch(t, a)
		time.Sleep(auth.RevocationCheck / 2)
		var wg sync.WaitGroup
		wg.Go(func() { wantAccepted(t, a, secret, "held while a check runs") })
		synctest.Wait()
		if err := st.RevokeToken(context.Background(), other, time.Now()); err != nil {
			t.Fatal(err)
		}
		time.Sleep(auth.RevocationCheck)
		close(w.gate)
		wg.Wait()
		time.Sleep(auth.CacheTTL + auth.RevocationCheck)
		wantAccepted(t, a, secret, "after CacheTTL")
		if got := w.lookups.Load(); got != 2 {
			t.Errorf("lookups = %d, want 2: a lookup across a revocation is trusted for CacheTTL only", got)
		}
	})
}
