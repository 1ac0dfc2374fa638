package auth

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/teammemd/teammemd/server/store"
)

// CacheTTL is how long a TokenAuthenticator trusts a token it has looked up.
// A revoked token stops working at most this long after the revocation.
const CacheTTL = 5 * time.Second

// maxCached bounds the positive cache; when full, expired entries are dropped
// and, if none had expired, the whole cache is cleared.
const maxCached = 4096

// maxBearerBytes is the longest bearer credential worth looking up.
const maxBearerBytes = 1024

// TokenAuthenticator authenticates API tokens against a token store. It keeps
// a short positive cache keyed by the token's hash (never the secret), so a
// request costs one hash and a map lookup; unknown tokens are never cached.
type TokenAuthenticator struct {
	tokens store.Tokens

	mu    sync.Mutex
	cache map[string]cachedPrincipal
}

type cachedPrincipal struct {
	p       Principal
	expires time.Time
}

// NewTokenAuthenticator returns an Authenticator over tokens.
func NewTokenAuthenticator(tokens store.Tokens) *TokenAuthenticator {
	return &TokenAuthenticator{tokens: tokens, cache: map[string]cachedPrincipal{}}
}

// Authenticate implements Authenticator. Errors never include the bearer.
func (a *TokenAuthenticator) Authenticate(ctx context.Context, bearer string) (Principal, error) {
	if bearer == "" || len(bearer) > maxBearerBytes {
		return Principal{}, ErrUnauthenticated
	}
	hash := HashToken(bearer)
	now := time.Now()
	if p, ok := a.cached(hash, now); ok {
		return p, nil
	}
	tok, err := a.tokens.TokenByHash(ctx, hash)
	if errors.Is(err, store.ErrTokenNotFound) {
		return Principal{}, ErrUnauthenticated
	}
	if err != nil {
		return Principal{}, fmt.Errorf("look up token: %w", err)
	}
	if !tok.RevokedAt.IsZero() {
		return Principal{}, ErrUnauthenticated
	}
	p := Principal{Subject: tok.Subject, Grants: slices.Clone(tok.Grants)}
	a.remember(hash, p, now)
	return p, nil
}

func (a *TokenAuthenticator) cached(hash string, now time.Time) (Principal, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	c, ok := a.cache[hash]
	if !ok {
		return Principal{}, false
	}
	if !now.Before(c.expires) {
		delete(a.cache, hash)
		return Principal{}, false
	}
	return Principal{Subject: c.p.Subject, Grants: slices.Clone(c.p.Grants)}, true
}

func (a *TokenAuthenticator) remember(hash string, p Principal, now time.Time) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.cache) >= maxCached {
		for h, c := range a.cache {
			if !now.Before(c.expires) {
				delete(a.cache, h)
			}
		}
		if len(a.cache) >= maxCached {
			clear(a.cache)
		}
	}
	a.cache[hash] = cachedPrincipal{p: p, expires: now.Add(CacheTTL)}
}
