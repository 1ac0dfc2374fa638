package server

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"time"

	"github.com/teammemd/teammemd/internal/savetrace"
	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/store"
)

// waitersRetryAfter is the Retry-After sent when too many clients wait.
const waitersRetryAfter = 5 * time.Second

// waitAsk is a change wait: whose, on which repo, the checksum the client
// holds, whether it asked for the changes since alone (delta) and for
// write hints (hintWrite), and the client instance that sent it (see
// carryOwnWaits).
type waitAsk struct {
	subject, repo, inm string
	delta, hints       bool
	instance           string
}

// waitChange holds a hash probe while the repo's checksum still equals
// a.inm: 200 with the new hashes once it changes (the changes since
// a.inm alone when a.delta and the wait read the repo at a.inm), 304 when
// wait (plus up to 10% jitter) passes, 503 at once when the server shuts
// down. A repo never written counts as having the empty repo checksum. A
// wait over the subject's cap gets 429, over the server's 503, both at
// once.
func (s *Server) waitChange(w http.ResponseWriter, r *http.Request, a waitAsk, wait time.Duration) error {
	subject, repo, inm := a.subject, a.repo, a.inm
	if err := s.takeWaitSlot(w, subject); err != nil {
		return err
	}
	s.metrics.waiters.Inc()
	parked := false
	defer func() {
		if !parked { // a parked wait gives its slot back when it ends
			s.waitSlots.release(subject)
			s.metrics.waiters.Dec()
		}
	}()
	deadline := time.Now().Add(wait + jitter(wait))
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	var prev *store.Snapshot // the repo at inm, as read while waiting
	woken := false
	for {
		changed, release := s.waker.Subscribe(repo)
		snap, found, err := s.waitHashes(r.Context(), repo, changed, woken)
		if err != nil {
			release()
			return err
		}
		if snap.Checksum != inm {
			release()
			if err := s.stillAdmittedAfter(w, r, repo, woken); err != nil {
				return err
			}
			if !found {
				return notFound()
			}
			s.writeWaitAnswer(w, prev, snap, a.delta)
			savetrace.Mark("server.woke", "")
			return nil
		}
		if found {
			prev = &snap
		}
		if !parked && s.park(w, r, a, deadline) {
			// The parked wait subscribed on its own, after this read.
			parked = true
			release()
			return nil
		}
		select {
		case <-changed:
			release()
			woken = true
		case <-timer.C:
			release()
			if err := s.stillAdmittedAfter(w, r, repo, true); err != nil {
				return err
			}
			notModified(w, inm)
			return nil
		case <-s.stopping:
			release()
			return unavailable(w, "server is shutting down", time.Second)
		case <-r.Context().Done():
			release()
			return fmt.Errorf("change wait: %w", r.Context().Err())
		}
	}
}

// stillAdmittedAfter checks the credential of r, a change wait on repo,
// again before its answer once it has waited: see stillAdmitted.
func (s *Server) stillAdmittedAfter(w http.ResponseWriter, r *http.Request, repo string, waited bool) error {
	if !waited {
		return nil // checked as the request came
	}
	bearer, _ := bearerToken(r.Header.Get("Authorization"))
	return s.stillAdmitted(r.Context(), w, bearer, repo)
}

// stillAdmitted checks bearer, the credential of a change wait on repo,
// again before the wait is answered, as a new request's would be: nil
// while it authenticates and may read repo (a personal lane: while it
// authenticates, as the lane is its subject's), else the answer a new
// request with it gets: 401 for a revoked token or an expired login, 403
// for a grant taken away, 503 when it cannot be checked now. The check is
// a request's: a token looked up within auth.CacheTTL, or since the last
// revocation the server saw, costs a hash and a cache lookup.
func (s *Server) stillAdmitted(ctx context.Context, w http.ResponseWriter, bearer, repo string) error {
	if store.IsPersonalRepo(repo) {
		_, err := s.authenticate(ctx, w, bearer, "")
		return err
	}
	p, err := s.authenticate(ctx, w, bearer, repo)
	if err != nil {
		return err
	}
	if !p.Allows(repo, store.LevelRead) {
		return denied(p, repo, store.LevelRead)
	}
	return nil
}

// takeWaitSlot takes a change wait slot for subject or answers why not:
// 429 when the subject holds its share, which it alone can fix by waiting
// less, and 503 when the server is full, which is no one client's doing.
func (s *Server) takeWaitSlot(w http.ResponseWriter, subject string) error {
	reason, ok := s.waitSlots.acquire(subject)
	if ok {
		return nil
	}
	s.metrics.waitRefusals.WithLabelValues(reason).Inc()
	if reason == refusedSubject {
		setRetryAfter(w, waitersRetryAfter)
		return api.NewError(http.StatusTooManyRequests, api.CodeRateLimited,
			"this token's subject holds as many change waits as it may; retry once one ends")
	}
	return unavailable(w, "too many clients are waiting for changes; retry later", waitersRetryAfter)
}

// currentHashes returns the repo's snapshot without values; a repo never
// written is not found and has the empty repo checksum.
func (s *Server) currentHashes(ctx context.Context, repo string) (store.Snapshot, bool, error) {
	snap, err := s.store.Snapshot(ctx, repo, false)
	if errors.Is(err, store.ErrNotFound) {
		return store.Snapshot{Checksum: api.EmptyRepoChecksum}, false, nil
	}
	if err != nil {
		return store.Snapshot{}, false, fmt.Errorf("snapshot %s: %w", repo, err)
	}
	return snap, true, nil
}

// jitter returns a random duration in [0, d/10], so waits that started
// together do not all end together.
func jitter(d time.Duration) time.Duration {
	if d < 10 {
		return 0
	}
	return rand.N(d/10 + 1)
}
