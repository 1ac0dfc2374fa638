package auth

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"golang.org/x/sync/singleflight"

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
	cache  *verdictCache[Principal]
	// lookups shares one store lookup among the requests that present a
	// token at once, such as every daemon of a team reconnecting.
	lookups singleflight.Group
}

// NewTokenAuthenticator returns an Authenticator over tokens.
func NewTokenAuthenticator(tokens store.Tokens) *TokenAuthenticator {
	return &TokenAuthenticator{tokens: tokens, cache: newVerdictCache[Principal](maxCached)}
}

// Authenticate implements Authenticator. Errors never include the bearer.
func (a *TokenAuthenticator) Authenticate(ctx context.Context, bearer string) (Principal, error) {
	if bearer == "" || len(bearer) > maxBearerBytes {
		return Principal{}, ErrUnauthenticated
	}
	hash := HashToken(bearer)
	now := time.Now()
	if p, ok := a.cache.get(hash, now); ok {
		return p.clone(), nil
	}
	res := a.lookups.DoChan(hash, func() (any, error) { return a.lookup(ctx, hash, now) })
	select {
	case r := <-res:
		if r.Err != nil {
			return Principal{}, r.Err
		}
		return r.Val.(Principal).clone(), nil
	case <-ctx.Done():
		return Principal{}, fmt.Errorf("look up token: %w", ctx.Err())
	}
}

// lookupTimeout bounds a token lookup shared by several requests.
const lookupTimeout = 10 * time.Second

// lookup reads the token with hash from the store and caches its principal.
// It runs for every request that asked meanwhile, so the first one's
// cancellation does not end it.
func (a *TokenAuthenticator) lookup(ctx context.Context, hash string, now time.Time) (Principal, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), lookupTimeout)
	defer cancel()
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
	p := Principal{Subject: tok.Subject, Mode: ModeToken, TokenID: tok.ID, Grants: slices.Clone(tok.Grants)}
	a.cache.put(hash, p.clone(), now.Add(CacheTTL), now)
	return p, nil
}
