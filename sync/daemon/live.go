package daemon

import (
	"context"
	"time"

	"github.com/teammemd/teammemd/internal/pause"
	"github.com/teammemd/teammemd/internal/savetrace"
	"github.com/teammemd/teammemd/server/api"
	memsync "github.com/teammemd/teammemd/sync"
)

// live holds a change wait on the server with the engine's checksum and
// asks the worker to pull whenever the repo changed. Failures back off
// exponentially with jitter; there is no other polling.
func (r *repo) live(ctx context.Context) error {
	bo := backoff{min: r.opts.MinBackoff, max: r.opts.MaxBackoff}
	failing := false
	var held api.HashesResponse // the last whole hashes a wait answered
	for {
		if !r.awaitResume(ctx) {
			return nil
		}
		cur := r.checksum()
		held = r.catchUp(held, cur)
		h, from, changed, err := r.wait(ctx, cur, held)
		savetrace.Mark("wait.answered", "")
		if err == nil && changed {
			held = h
			held.Entries = nil // the pull's alone
		}
		if ctx.Err() != nil {
			return nil
		}
		r.status.noteReach(err)
		if err != nil && r.halt(err) {
			continue
		}
		if r.eng.StoreChanged() {
			// The answer, whatever it was, named a new store identity: the
			// server's database was restored or replaced. Re-baseline now.
			held = api.HashesResponse{}
			if err := r.requestPull(ctx, waitAnswer{}); err != nil && !pause.For(ctx, bo.next()) {
				return nil
			}
			continue
		}
		if err != nil {
			failing = true
			r.setLive(false)
			d := bo.next()
			r.log.Warn("change wait failed; reconnecting", "err", err, memsync.RetryInAttr(d))
			r.status.setRetry(retryWait, time.Now().Add(d), err.Error())
			if !r.backOff(ctx, d) {
				return nil
			}
			continue
		}
		r.status.clearRetry(retryWait)
		r.setLive(true)
		r.log.Debug("change wait answered", "changed", changed)
		if failing {
			// The server is back: send what piled up meanwhile.
			failing = false
			r.poke()
		}
		if !changed || h.Checksum == r.checksum() {
			bo.reset()
			continue
		}
		if err := r.requestPull(ctx, waitAnswer{armed: from, checksum: h.Checksum, hashes: h}); err != nil || r.checksum() == cur {
			// A failed pull, or one that did not move the checksum, must
			// not turn into a tight loop of immediate answers.
			if !pause.For(ctx, bo.next()) {
				return nil
			}
			continue
		}
		bo.reset()
	}
}

// backOff waits d after a failed change wait, or less once a pull or push
// of the worker got through to the server (it is back); it reports false
// when ctx ended first.
func (r *repo) backOff(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-r.reached:
		r.log.Debug("change wait reconnects: the server answered the worker")
	case <-ctx.Done():
		return false
	}
	return true
}

// wait holds one change wait from cur, the engine's checksum, asking for
// the changes since alone when held is whole at cur. It returns the
// answer, made whole, and the checksum the answer is relative to: cur, or
// the one the server carried the wait to past this repo's own pushes
// (PROTOCOL.md section 19), which the engine has synced to by then.
func (r *repo) wait(ctx context.Context, cur string, held api.HashesResponse) (api.HashesResponse, string, bool, error) {
	ctx = r.traced(ctx, retryWait)
	from := cur
	if cw, ok := r.waiter.(ChangesWaiter); ok && held.Checksum == cur && held.EntryChecksums != nil {
		h, changed, err := cw.WaitChanges(ctx, r.spec.Repo, held, r.opts.WaitTimeout, func(at string) (api.HashesResponse, bool) {
			h := r.catchUp(held, at)
			if h.Checksum != at {
				return h, false
			}
			from = at
			return h, true
		})
		return h, from, changed, err
	}
	h, changed, err := r.waiter.Wait(ctx, r.spec.Repo, cur, r.opts.WaitTimeout)
	return h, from, changed, err
}

// catchUp returns the whole hashes at cur, the checksum the engine synced
// to, from held, those of the last change wait that answered (none
// before the first), when held is at another checksum and the engine can
// make them (HashesFolder): its own pushes moved it, which the server
// does not answer its change wait with (PROTOCOL.md section 19), or its
// pulls. Otherwise it returns held.
func (r *repo) catchUp(held api.HashesResponse, cur string) api.HashesResponse {
	f, ok := r.eng.(HashesFolder)
	if !ok || held.Checksum == cur && held.EntryChecksums != nil {
		return held
	}
	if h, ok := f.HashesFrom(held); ok && h.Checksum == cur {
		return h
	}
	return held
}

// checksum is the engine's checksum, or the empty repo's.
func (r *repo) checksum() string {
	if c := r.eng.Checksum(); c != "" {
		return c
	}
	return api.EmptyRepoChecksum
}

// waitAnswer asks the worker to pull because a change wait armed with
// the checksum armed answered that the repo's checksum is now checksum;
// the zero waitAnswer asks for a pull in any case.
type waitAnswer struct {
	armed, checksum string
	hashes          api.HashesResponse // what the wait answered, the pull's hint
	reply           chan error
}

// requestPull has the worker pull on the wait's answer a (see
// pullForWait) and waits for the outcome.
func (r *repo) requestPull(ctx context.Context, a waitAnswer) error {
	askPullSeen(r.spec.Dir)
	a.reply = make(chan error, 1)
	select {
	case r.pullReq <- a:
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case err := <-a.reply:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (r *repo) setLive(ok bool) {
	r.status.update(func(s *RepoStatus) { s.Live = ok })
}
