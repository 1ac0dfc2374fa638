package auth

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/teammemd/teammemd/server/store"
)

// CacheTTL is how long a TokenAuthenticator trusts a token it has looked up,
// and, while its store's revocations are checked (CheckRevocations), how long
// after the last check that found none. A revoked token stops working at
// most this long after the revocation.
const CacheTTL = 5 * time.Second

// maxTokensCached bounds the token cache: more than the 10,000 change
// waits a server holds by default (max_waiters), each of a token of its
// own, so that while the revocation watch vouches for them none is dropped
// for room and looked up again.
const maxTokensCached = 16384

// heldFor is how long a looked-up token stays in the cache while the
// revocation watch vouches for it: long enough that a daemon saving every
// few minutes finds its token there.
const heldFor = time.Hour

// maxCached bounds the positive cache; when full, expired entries are dropped
// and, if none had expired, the whole cache is cleared.
const maxCached = 4096

// maxBearerBytes is the longest bearer credential worth looking up.
const maxBearerBytes = 1024

// TokenAuthenticator authenticates API tokens against a token store. It keeps
// a positive cache keyed by the token's hash (never the secret), so a
// request costs one hash and a map lookup; unknown tokens are never cached.
// A cached token is trusted for CacheTTL after its lookup, and as long as
// CheckRevocations finds no revocation since.
type TokenAuthenticator struct {
	tokens store.Tokens
	cache  *verdictCache[tokenVerdict]
	watch  atomic.Pointer[revocationWatch]
	// lookups shares one store lookup among the requests that present a
	// token at once, such as every daemon of a team reconnecting.
	lookups singleflight.Group
}

// NewTokenAuthenticator returns an Authenticator over tokens.
func NewTokenAuthenticator(tokens store.Tokens) *TokenAuthenticator {
	a := &TokenAuthenticator{tokens: tokens, cache: newVerdictCache[tokenVerdict](maxTokensCached)}
	a.watch.Store(&revocationWatch{})
	return a
}

// tokenVerdict is a token looked up: its principal, when and under which
// generation of the revocation watch.
type tokenVerdict struct {
	p   Principal
	at  time.Time
	gen uint64
}

// Authenticate implements Authenticator. Errors never include the bearer.
func (a *TokenAuthenticator) Authenticate(ctx context.Context, bearer string) (Principal, error) {
	if bearer == "" || len(bearer) > maxBearerBytes {
		return Principal{}, ErrUnauthenticated
	}
	hash := HashToken(bearer)
	now := time.Now()
	if v, ok := a.cache.get(hash, now); ok && a.trusted(v, now) {
		return v.p.clone(), nil
	}
	gen := a.watch.Load().gen // before the lookup: a revocation found meanwhile moves it
	res := a.lookups.DoChan(hash, func() (any, error) { return a.lookup(ctx, hash, now, gen) })
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
func (a *TokenAuthenticator) lookup(ctx context.Context, hash string, now time.Time, gen uint64) (Principal, error) {
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
	a.cache.put(hash, tokenVerdict{p: p.clone(), at: now, gen: gen}, now.Add(heldFor), now)
	return p, nil
}
