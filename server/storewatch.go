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

// storeWatchQuiet is how long after the last request the store watch
// pauses. A connected daemon asks at least once a max_wait (its change
// wait), so only a server no client talks to pauses, and then sleeps
// until asked; its next request reads what it needs on its way, as
// before the watch, and wakes the watch.
const storeWatchQuiet = 2 * time.Minute

// watchStore reads the store identity and checks the token revocations
// now and every storeWatchEvery until ctx is done, one right after the
// other, so that an idle server wakes once for both and the second finds
// the database's code warm; it pauses while no request came for
// storeWatchQuiet. A request then never waits on either: a daemon's save
// after a pause would otherwise find the identity and its token's lookup
// too old and read the store for each. A failed check is logged once per
// failing spell; the identity read keeps its last value.
func (s *Server) watchStore(ctx context.Context) {
	w := storeWatch{s: s}
	w.rc, _ = s.auth.(revocationChecker)
	defer w.pause()
	s.noteRequest(time.Now()) // a server just started is as if just asked
	t := time.NewTicker(storeWatchEvery)
	defer t.Stop()
	for {
		if time.Since(time.Unix(0, s.lastRequest.Load())) > storeWatchQuiet {
			w.pause()
			if !s.sleepUntilAsked(ctx) {
				return
			}
			t.Reset(storeWatchEvery)
		}
		w.check(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// noteRequest records that a request came at t, for watchStore, and wakes
// a watch that sleeps until one does.
func (s *Server) noteRequest(t time.Time) {
	s.lastRequest.Store(t.UnixNano())
	select {
	case s.watchWake <- struct{}{}:
	default: // a wake is pending already
	}
}

// sleepUntilAsked blocks until a request comes (noteRequest) or ctx is
// done, which it reports by returning false. A wake left from a request
// made while the watch ran finds the server still quiet and is slept
// through.
func (s *Server) sleepUntilAsked(ctx context.Context) bool {
	for time.Since(time.Unix(0, s.lastRequest.Load())) > storeWatchQuiet {
		select {
		case <-ctx.Done():
			return false
		case <-s.watchWake:
		}
	}
	return true
}

// storeWatch is one watchStore loop: whether it keeps the identity fresh
// (on), and whether its last revocation check failed.
type storeWatch struct {
	s           *Server
	rc          revocationChecker
	on, failing bool
}

// check reads the identity, then checks the revocations.
func (w *storeWatch) check(ctx context.Context) {
	w.s.identity.refresh(ctx)
	if !w.on {
		w.s.identity.watched.Add(1) // from here on, requests take the last read
		w.on = true
	}
	if w.rc != nil {
		w.failing = w.s.noteRevocationCheck(ctx, w.rc.CheckRevocations(ctx), w.failing)
	}
}

// pause hands the identity back to the requests, which read it when it is
// stale.
func (w *storeWatch) pause() {
	if w.on {
		w.s.identity.watched.Add(-1)
		w.on = false
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
