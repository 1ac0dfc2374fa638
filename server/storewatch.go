package server

import (
	"context"
	"time"

	"github.com/teammemd/teammemd/server/auth"
)

// revocationChecker is an authenticator that checks its store for revoked
// tokens (auth.TokenAuthenticator, auth.Modes).
type revocationChecker interface {
	CheckRevocations(ctx context.Context) error
}

// storeWatchEvery is how often the server reads, between requests, what
// it would otherwise read on a request's way: the store identity and
// whether a token was revoked.
const storeWatchEvery = auth.RevocationCheck

// watchStore reads the store identity and checks the token revocations
// now and every storeWatchEvery until ctx is done, one right after the
// other, so that an idle server wakes once for both and the second finds
// the database's code warm. A request then never waits on either: a
// daemon's save after a pause would otherwise find the identity and its
// token's lookup too old and read the store for each. A failed check is
// logged once per failing spell; the identity read keeps its last value.
func (s *Server) watchStore(ctx context.Context) {
	rc, _ := s.auth.(revocationChecker)
	s.identity.watched.Add(1)
	defer s.identity.watched.Add(-1)
	t := time.NewTicker(storeWatchEvery)
	defer t.Stop()
	failing := false
	for {
		s.identity.refresh(ctx)
		if rc != nil {
			failing = s.noteRevocationCheck(ctx, rc.CheckRevocations(ctx), failing)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// noteRevocationCheck logs a check's failure when the last one did not
// fail, and its recovery, and reports whether it failed.
func (s *Server) noteRevocationCheck(ctx context.Context, err error, failing bool) bool {
	switch {
	case err != nil && !failing && ctx.Err() == nil:
		s.log.Warn("token revocations not checked; cached tokens are looked up again "+auth.CacheTTL.String()+" after their lookup", "err", err)
	case err == nil && failing:
		s.log.Info("token revocations checked again")
	}
	return err != nil
}
