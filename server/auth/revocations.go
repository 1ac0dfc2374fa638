package auth

import (
	"context"
	"log/slog"
	"time"

	"github.com/teammemd/teammemd/server/store"
)

// RevocationCheck is how often WatchRevocations asks the store whether a
// token was revoked.
const RevocationCheck = CacheTTL / 2

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

// WatchRevocations checks the store's token counts every RevocationCheck
// until ctx is done, so that a token looked up once is trusted without
// another lookup until a revocation: a daemon's request after a pause then
// costs no store read. A revocation is found within RevocationCheck; while
// the store does not answer, cached tokens are trusted for CacheTTL after
// the last check that answered, as if nothing watched. At most one watch
// runs for an authenticator; log gets a failed check once per failing
// spell.
func (a *TokenAuthenticator) WatchRevocations(ctx context.Context, log *slog.Logger) {
	t := time.NewTicker(RevocationCheck)
	defer t.Stop()
	failing := false
	for {
		err := a.checkRevocations(ctx)
		switch {
		case err != nil && !failing && ctx.Err() == nil:
			log.Warn("token revocations not checked; cached tokens are looked up again after "+CacheTTL.String(), "err", err)
			failing = true
		case err == nil && failing:
			log.Info("token revocations checked again")
			failing = false
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// checkRevocations reads the store's token counts once and moves the watch
// on: to a new generation when they changed.
func (a *TokenAuthenticator) checkRevocations(ctx context.Context) error {
	start := time.Now()
	cctx, cancel := context.WithTimeout(ctx, RevocationCheck)
	defer cancel()
	counts, err := a.tokens.TokenCounts(cctx)
	if err != nil {
		return err
	}
	w := a.watch.Load()
	next := &revocationWatch{gen: w.gen, counts: counts, until: start.Add(CacheTTL)}
	if w.gen == 0 || counts.Revoked != w.counts.Revoked || counts.Tokens < w.counts.Tokens {
		next.gen = w.gen + 1 // a new token alone changes no verdict
	}
	a.watch.Store(next)
	return nil
}
