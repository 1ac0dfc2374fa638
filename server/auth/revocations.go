package auth

import (
	"context"
	"fmt"
	"time"

	"github.com/teammemd/teammemd/server/store"
)

// RevocationCheck is how often a server calls CheckRevocations: under
// CacheTTL, so that while the store answers, each check's answer comes
// before the trust the last one gave runs out, and a revocation is found
// within it.
const RevocationCheck = 4 * time.Second

// revocationWatch is what the last check of the store's tokens found. It
// is replaced whole, never modified.
type revocationWatch struct {
	// gen moves each time a check finds a token revoked (or one fewer
	// token), and from 0 at the first check: a token looked up under gen,
	// while gen stays, has had no revocation since the check before its
	// lookup.
	gen    uint64
	counts store.TokenCounts
	// until is CacheTTL after the start of the last check that answered.
	until time.Time
}

// trusted reports whether v, from the cache, is still good at now: within
// CacheTTL of its lookup, or looked up under the watch's generation while
// the watch's last answer is within CacheTTL.
func (a *TokenAuthenticator) trusted(v tokenVerdict, now time.Time) bool {
	if now.Before(v.at.Add(CacheTTL)) {
		return true
	}
	w := a.watch.Load()
	return v.gen != 0 && v.gen == w.gen && now.Before(w.until)
}

// CheckRevocations reads the store's token counts once, so that a token
// looked up once is trusted without another lookup until a revocation: a
// daemon's request after a pause then costs no store read. A check that
// finds a token revoked (or one fewer token) has every token looked up
// again; a token is trusted for CacheTTL after the start of the last check
// that answered, so a caller checks every RevocationCheck. While no check
// answers, cached tokens are trusted for CacheTTL after their lookup, as
// if nothing checked.
func (a *TokenAuthenticator) CheckRevocations(ctx context.Context) error {
	start := time.Now()
	cctx, cancel := context.WithTimeout(ctx, RevocationCheck)
	defer cancel()
	counts, err := a.tokens.TokenCounts(cctx)
	if err != nil {
		return fmt.Errorf("check token revocations: %w", err)
	}
	w := a.watch.Load()
	next := &revocationWatch{gen: w.gen, counts: counts, until: start.Add(CacheTTL)}
	if w.gen == 0 || counts.Revoked != w.counts.Revoked || counts.Tokens < w.counts.Tokens {
		next.gen = w.gen + 1 // a new token alone changes no verdict
	}
	a.watch.Store(next)
	return nil
}
