package auth_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/teammemd/teammemd/server/auth"
	"github.com/teammemd/teammemd/server/store"
	"github.com/teammemd/teammemd/server/store/sqlite"
)

func openTokens(t *testing.T) *sqlite.Store {
	t.Helper()
	s, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), sqlite.FileName), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestTokenAuthenticator(t *testing.T) {
	ctx := context.Background()
	st := openTokens(t)
	grants, err := auth.ParseGrants("acme/*,acme/**", store.LevelWrite)
	if err != nil {
		t.Fatal(err)
	}
	secret, rec, err := auth.NewTokenRecord("ann", grants, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := st.CreateToken(ctx, rec); err != nil {
		t.Fatal(err)
	}
	a := auth.NewTokenAuthenticator(st)
	tests := []struct {
		name, bearer string
		want         string // subject, or "" for ErrUnauthenticated
	}{
		{"valid", secret, "ann"},
		{"valid again (cached)", secret, "ann"},
		{"empty", "", ""},
		{"unknown", "tmd_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", ""},
		{"truncated", secret[:len(secret)-1], ""},
		{"the hash itself", rec.Hash, ""},
		{"huge", strings.Repeat("x", 10_000), ""},
	}
	for _, tt := range tests {
		p, err := a.Authenticate(ctx, tt.bearer)
		switch {
		case tt.want == "" && !errors.Is(err, auth.ErrUnauthenticated):
			t.Errorf("Authenticate(%s) error = %v, want ErrUnauthenticated", tt.name, err)
		case tt.want != "" && (err != nil || p.Subject != tt.want):
			t.Errorf("Authenticate(%s) = %q, %v, want %q", tt.name, p.Subject, err, tt.want)
		case tt.want != "" && !p.Allows("acme/team/app", store.LevelWrite):
			t.Errorf("Authenticate(%s).Allows(acme/team/app, write) = false, want true", tt.name)
		}
		if err != nil && strings.Contains(err.Error(), secret) {
			t.Errorf("Authenticate(%s) error %q holds the secret", tt.name, err)
		}
	}
}

// TestRevokeTakesEffect checks that a revoked token stops working once the
// positive cache entry expires, and not before CacheTTL.
func TestRevokeTakesEffect(t *testing.T) {
	st := openTokens(t)
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		secret, rec, err := auth.NewTokenRecord("ann", []store.Grant{{Pattern: "acme/*", Level: store.LevelRead}}, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if err := st.CreateToken(ctx, rec); err != nil {
			t.Fatal(err)
		}
		a := auth.NewTokenAuthenticator(st)
		if _, err := a.Authenticate(ctx, secret); err != nil {
			t.Fatalf("Authenticate(before revoke) error = %v", err)
		}
		if err := st.RevokeToken(ctx, rec.ID, time.Now()); err != nil {
			t.Fatal(err)
		}
		// A fresh authenticator has no cache: the revoke is seen at once.
		if _, err := auth.NewTokenAuthenticator(st).Authenticate(ctx, secret); !errors.Is(err, auth.ErrUnauthenticated) {
			t.Errorf("Authenticate(revoked, uncached) error = %v, want ErrUnauthenticated", err)
		}
		// The authenticator that cached it keeps trusting it for CacheTTL.
		time.Sleep(auth.CacheTTL - time.Millisecond)
		if _, err := a.Authenticate(ctx, secret); err != nil {
			t.Errorf("Authenticate(revoked, still cached) error = %v, want nil within CacheTTL", err)
		}
		time.Sleep(time.Millisecond)
		if _, err := a.Authenticate(ctx, secret); !errors.Is(err, auth.ErrUnauthenticated) {
			t.Errorf("Authenticate(revoked, %v later) error = %v, want ErrUnauthenticated", auth.CacheTTL, err)
		}
	})
}

// TestStoreFailure checks that a store that cannot answer is not reported
// as a bad token.
func TestStoreFailure(t *testing.T) {
	st := openTokens(t)
	a := auth.NewTokenAuthenticator(st)
	st.Close()
	_, err := a.Authenticate(context.Background(), "tmd_whatever")
	if err == nil || errors.Is(err, auth.ErrUnauthenticated) {
		t.Errorf("Authenticate(closed store) error = %v, want a store error", err)
	}
}

// gatedTokens counts the token lookups that reach the real store, and
// holds each until gate is closed.
type gatedTokens struct {
	store.Tokens
	gate  chan struct{}
	calls atomic.Int32
}

func (g *gatedTokens) TokenByHash(ctx context.Context, hash string) (store.Token, error) {
	g.calls.Add(1)
	<-g.gate
	return g.Tokens.TokenByHash(ctx, hash)
}

// TestConcurrentLookupsShared presents one token in many requests at once,
// as a team's daemons reconnecting do: the store is asked once, and every
// request gets the token's subject.
func TestConcurrentLookupsShared(t *testing.T) {
	st := openTokens(t)
	secret, rec, err := auth.NewTokenRecord("ann", []store.Grant{{Pattern: "acme/*", Level: store.LevelRead}}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := st.CreateToken(context.Background(), rec); err != nil {
		t.Fatal(err)
	}
	synctest.Test(t, func(t *testing.T) {
		g := &gatedTokens{Tokens: st, gate: make(chan struct{})}
		a := auth.NewTokenAuthenticator(g)
		const requests = 50
		subjects := make(chan string, requests)
		var wg sync.WaitGroup
		for range requests {
			wg.Go(func() {
				p, err := a.Authenticate(context.Background(), secret)
				if err != nil {
					t.Errorf("Authenticate() error = %v", err)
				}
				subjects <- p.Subject
			})
		}
		synctest.Wait()
		if got := g.calls.Load(); got != 1 {
			t.Errorf("%d requests at once looked the token up %d times, want 1", requests, got)
		}
		close(g.gate)
		wg.Wait()
		close(subjects)
		for s := range subjects {
			if s != "ann" {
				t.Errorf("Authenticate() subject = %q, want ann", s)
			}
		}
	})
}
