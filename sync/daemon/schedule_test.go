package daemon

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/teammemd/teammemd/server/api"
	memsync "github.com/teammemd/teammemd/sync"
	"github.com/teammemd/teammemd/watch"
)

// The tests in this file run a repo's worker, change wait and credential
// check on synctest's fake clock, against an engine and a change wait that
// answer what the test scripts, without a network or a file watcher: the
// times they show are exact.

// scriptEngine is an Engine whose pulls and pushes fail with the errors
// the test sets, or succeed having synced nothing; it records when each
// ran, and what ran in order.
type scriptEngine struct {
	mu               sync.Mutex
	pullErr, pushErr error
	pulls, pushes    []time.Time
	// changes makes every push that succeeds change the repo checksum.
	changes bool
	pushed  int
	// hang makes a provenance refresh wait for its context to end.
	hang bool
	// events are the calls in order, with when they ran ("pull 0s").
	events []string
	start  time.Time
}

func (e *scriptEngine) Pull(context.Context) (memsync.Report, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.pulls = append(e.pulls, time.Now())
	e.note("pull")
	return memsync.Report{}, e.pullErr
}

func (e *scriptEngine) Push(context.Context) (memsync.Report, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.pushes = append(e.pushes, time.Now())
	e.note("push")
	if e.changes && e.pushErr == nil {
		e.pushed++
	}
	return memsync.Report{}, e.pushErr
}

// Checksum is empty until a push changed the repo, then names the push.
func (e *scriptEngine) Checksum() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.pushed == 0 {
		return ""
	}
	return fmt.Sprintf("sha256:push-%d", e.pushed)
}

// RefreshProvenance records its start and, with hang set, waits for ctx
// to end and records that too; it writes no record.
func (e *scriptEngine) RefreshProvenance(ctx context.Context) error {
	e.mu.Lock()
	e.note("refresh")
	hang := e.hang
	e.mu.Unlock()
	if !hang {
		return nil
	}
	<-ctx.Done()
	e.mu.Lock()
	defer e.mu.Unlock()
	e.note("refresh ended")
	return ctx.Err()
}

// note records one call with the time since the first, under e.mu.
func (e *scriptEngine) note(what string) {
	if e.start.IsZero() {
		e.start = time.Now()
	}
	e.events = append(e.events, what+" "+time.Since(e.start).String())
}

// calledInOrder returns the calls recorded so far.
func (e *scriptEngine) calledInOrder() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.events...)
}

func (e *scriptEngine) StoreChanged() bool        { return false }
func (e *scriptEngine) Unsent() ([]string, error) { return nil, nil }

// PullChanged is a pull: the script does not look at the hint.
func (e *scriptEngine) PullChanged(ctx context.Context, _ api.HashesResponse) (memsync.Report, error) {
	return e.Pull(ctx)
}
func (e *scriptEngine) Show(key string) string { return key }

// Identify finds nothing: the script engine writes no file.
func (e *scriptEngine) Identify(string) (memsync.FileID, error) {
	return memsync.FileID{}, fs.ErrNotExist
}

// fail sets the errors of the next pulls and pushes.
func (e *scriptEngine) fail(pull, push error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.pullErr, e.pushErr = pull, push
}

// calls returns when the pulls and pushes ran.
func (e *scriptEngine) calls() (pulls, pushes []time.Time) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]time.Time(nil), e.pulls...), append([]time.Time(nil), e.pushes...)
}

// scriptWaiter is a change wait that fails with err, or, with none, is
// held the whole wait without a change, as a server holds it.
type scriptWaiter struct {
	mu    sync.Mutex
	err   error
	waits int
}

func (w *scriptWaiter) Wait(ctx context.Context, _, _ string, wait time.Duration) (api.HashesResponse, bool, error) {
	w.mu.Lock()
	w.waits++
	err := w.err
	w.mu.Unlock()
	if err != nil {
		return api.HashesResponse{}, false, err
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-t.C:
		return api.HashesResponse{}, false, nil
	case <-ctx.Done():
		return api.HashesResponse{}, false, ctx.Err()
	}
}

func (w *scriptWaiter) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.waits
}

// fakeRepo runs a repo's worker, change wait and credential check on eng
// and waiter until the test ends, with the default 1s to 2m backoff; edit
// changes the repo before it starts.
func fakeRepo(t *testing.T, eng Engine, waiter Waiter, edit func(*repo)) *repo {
	t.Helper()
	opts := &Options{Open: func(context.Context, Spec) (Engine, Waiter, error) { return eng, waiter, nil }}
	opts.setDefaults()
	s := Spec{Repo: slug, Dir: t.TempDir(), Server: "http://127.0.0.1:1", Source: "test"}
	w, err := watch.New(s.Dir, opts.Watch)
	if err != nil {
		t.Fatal(err)
	}
	r := newRepo(s, eng, waiter, w, opts)
	if edit != nil {
		edit(r)
	}
	ctx, cancel := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	wg.Go(func() { r.work(ctx) })
	wg.Go(func() { r.live(ctx) })
	wg.Go(func() { r.watchCredential(ctx) })
	t.Cleanup(func() { cancel(); wg.Wait() })
	return r
}

// ceiling is the longest wait of retry n (from 0) with the default
// backoff.
func ceiling(n int) time.Duration {
	return min(DefaultMinBackoff<<n, DefaultMaxBackoff)
}

var errBusy = api.NewError(503, api.CodeUnavailable, "server busy")

// TestRetryScheduleOnFakeClock: a pull that keeps failing is retried on
// the backoff schedule, each wait within its bounds and shown in the
// status as the time the retry then comes; a success ends the retries,
// and the next failure starts the schedule over.
func TestRetryScheduleOnFakeClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		eng := &scriptEngine{pullErr: errBusy}
		r := fakeRepo(t, eng, &scriptWaiter{}, nil)
		time.Sleep(10 * time.Minute)
		synctest.Wait()
		st := r.status.snapshot()
		if st.State != StateRetrying || st.NextRetry == nil || !strings.Contains(st.RetryCause, "server busy") {
			t.Fatalf("status after 10 minutes of failures = %s, want retrying with its cause", describe(st))
		}
		pulls, _ := eng.calls()
		if len(pulls) < 8 || len(pulls) > 20 {
			t.Fatalf("pulls in 10 minutes = %d, want 8 to 20", len(pulls))
		}
		for i := 1; i < len(pulls); i++ {
			if gap, c := pulls[i].Sub(pulls[i-1]), ceiling(i-1); gap < c/2 || gap > c {
				t.Errorf("wait before pull %d = %v, want within [%v, %v]", i+1, gap, c/2, c)
			}
		}

		due := *st.NextRetry
		time.Sleep(time.Until(due))
		synctest.Wait()
		if pulls, _ = eng.calls(); !pulls[len(pulls)-1].Equal(due) {
			t.Errorf("retry ran at %v, want %v as the status said", pulls[len(pulls)-1], due)
		}

		eng.fail(nil, nil)
		time.Sleep(time.Until(*r.status.snapshot().NextRetry))
		synctest.Wait()
		if st := r.status.snapshot(); st.State != StateIdle || st.NextRetry != nil {
			t.Fatalf("status after the retry worked = %s, want idle, no retry due", describe(st))
		}

		eng.fail(nil, errBusy)
		start := time.Now()
		r.poke()
		synctest.Wait()
		st = r.status.snapshot()
		if st.State != StateRetrying || st.NextRetry == nil || st.NextRetry.Sub(start) > DefaultMinBackoff {
			t.Errorf("status after a new failure = %s, want a retry within %v: the schedule starts over", describe(st), DefaultMinBackoff)
		}
	})
}

// TestUnreachableSinceOnFakeClock: the server is unreachable since the
// first failure to reach it, not the last, and an answer ends it.
func TestUnreachableSinceOnFakeClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		refused := &url.Error{Op: "Get", URL: "http://127.0.0.1:1/", Err: errors.New("connection refused")}
		eng, waiter := &scriptEngine{pullErr: refused}, &scriptWaiter{err: refused}
		start := time.Now()
		r := fakeRepo(t, eng, waiter, nil)
		time.Sleep(5 * time.Minute)
		synctest.Wait()
		st := r.status.snapshot()
		if st.UnreachableSince == nil || !st.UnreachableSince.Equal(start) || st.LastContact != nil || st.Live {
			t.Fatalf("status after 5 minutes unreachable = since %v, last contact %v, live %v; want since %v, no contact, not live",
				st.UnreachableSince, st.LastContact, st.Live, start)
		}
		if n := waiter.count(); n < 5 || n > 20 {
			t.Errorf("change waits in 5 minutes unreachable = %d, want 5 to 20", n)
		}

		// The server is back: the pull due reaches it, and the change wait,
		// whose own retry may be due much later, reconnects at once.
		eng.fail(nil, nil)
		due := retryAt(r, retryPull)
		time.Sleep(time.Until(due) - time.Nanosecond)
		synctest.Wait()
		waiter.mu.Lock()
		waiter.err = nil
		waiter.mu.Unlock()
		time.Sleep(time.Nanosecond)
		synctest.Wait()
		st = r.status.snapshot()
		if st.UnreachableSince != nil || st.LastContact == nil || !st.LastContact.Equal(due) || !st.Live {
			t.Errorf("status after the pull reached the server at %v = since %v, last contact %v, live %v; want reachable, contact then, live",
				due, st.UnreachableSince, st.LastContact, st.Live)
		}
	})
}

// TestHaltIsQuietOnFakeClock: a cause no retry can fix stops every request
// of the repo, with no retry due, for as long as it lasts; a new token
// opens the repo again within a credential check, except when the URL is
// at fault.
func TestHaltIsQuietOnFakeClock(t *testing.T) {
	tests := []struct {
		name    string
		err     error
		state   string
		restart bool
	}{
		{"401", api.NewError(401, api.CodeUnauthenticated, "invalid token"), StateUnauthorized, true},
		{"403 to a read", api.NewError(403, api.CodeACLDenied, "no grant"), StateDenied, true},
		{"not a teammemd server", &memsync.NotServerError{URL: "http://127.0.0.1:1", Reason: "a page"}, StateWrongServer, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				tokenFile := filepath.Join(t.TempDir(), "token")
				writeToken(t, tokenFile, "tmd_old")
				eng, waiter := &scriptEngine{pullErr: tt.err}, &scriptWaiter{err: tt.err}
				var mu sync.Mutex
				var restarted time.Time
				r := fakeRepo(t, eng, waiter, func(r *repo) {
					r.spec.TokenFile = tokenFile
					r.restart = func(context.Context) { mu.Lock(); defer mu.Unlock(); restarted = time.Now() }
				})
				time.Sleep(30 * time.Minute)
				synctest.Wait()
				st := r.status.snapshot()
				pulls, pushes := eng.calls()
				if st.State != tt.state || st.Halted == "" || st.NextRetry != nil || st.Live {
					t.Errorf("status = %s, want %s with the reason, no retry, not live", describe(st), tt.state)
				}
				if n := len(pulls) + waiter.count(); n < 1 || n > 2 || len(pushes) != 0 {
					t.Errorf("in 30 minutes halted: %d pulls, %d pushes, %d change waits; want the first pull, the first wait or both, and nothing more",
						len(pulls), len(pushes), waiter.count())
				}

				r.poke() // a reload tries once more, and stops again
				synctest.Wait()
				if again, _ := eng.calls(); len(again) != len(pulls)+1 || r.status.snapshot().State != tt.state {
					t.Errorf("after a reload: %d pulls, state %s; want %d, %s", len(again), r.status.snapshot().State, len(pulls)+1, tt.state)
				}

				changed := time.Now()
				writeToken(t, tokenFile, "tmd_new")
				time.Sleep(DefaultCredentialCheck)
				synctest.Wait()
				mu.Lock()
				defer mu.Unlock()
				if got := !restarted.IsZero(); got != tt.restart {
					t.Fatalf("repo opened again after the token file changed = %v, want %v", got, tt.restart)
				}
				if tt.restart && (!restarted.After(changed) || restarted.Sub(changed) > DefaultCredentialCheck) {
					t.Errorf("repo opened again %v after the token changed, want within %v", restarted.Sub(changed), DefaultCredentialCheck)
				}
			})
		})
	}
}

// TestRefusalStopsPushesOnFakeClock: a push refused for good stops pushes,
// with no retry due, until a reload or an edit asks again; pulls go on.
func TestRefusalStopsPushesOnFakeClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		refused := api.NewError(422, api.CodeSecretDetected, "a secret")
		eng := &scriptEngine{pushErr: refused}
		r := fakeRepo(t, eng, &scriptWaiter{}, nil)
		time.Sleep(30 * time.Minute)
		synctest.Wait()
		st := r.status.snapshot()
		if st.State != StateStopped || !strings.Contains(st.Suppressed, "a secret") || st.NextRetry != nil {
			t.Errorf("status after a refusal = %s, want stopped with the refusal, no retry", describe(st))
		}
		if _, pushes := eng.calls(); len(pushes) != 1 {
			t.Errorf("pushes in 30 minutes after a refusal = %d, want 1", len(pushes))
		}
		r.poke()
		synctest.Wait()
		if _, pushes := eng.calls(); len(pushes) != 2 {
			t.Errorf("pushes after a reload = %d, want 2", len(pushes))
		}
	})
}

// TestProvenanceRefreshBoundedOnFakeClock: a push that changes the repo
// checksum is followed, on the worker, by one provenance refresh once the
// checksum stayed for provenanceQuiet; one that hangs holds the worker
// provenanceTimeout and no longer, so a kick that came meanwhile is
// served then, and a failed refresh is not tried again until the checksum
// changes.
func TestProvenanceRefreshBoundedOnFakeClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		eng := &scriptEngine{changes: true, hang: true}
		r := fakeRepo(t, eng, &scriptWaiter{}, nil)
		time.Sleep(time.Second)
		r.poke()
		time.Sleep(time.Minute)
		synctest.Wait()
		want := []string{"pull 0s", "push 0s", "refresh 500ms", "refresh ended 5.5s", "push 5.5s", "refresh 6s", "refresh ended 11s"}
		if got := eng.calledInOrder(); strings.Join(got, ", ") != strings.Join(want, ", ") {
			t.Errorf("calls = %q, want %q", got, want)
		}
	})
}

// TestProvenanceWaitsForAQuietRepoOnFakeClock: syncs that move the repo
// checksum one after the other, as the pulls of a teammate's burst do,
// run without a provenance refresh between them; the one refresh comes
// provenanceQuiet after the last.
func TestProvenanceWaitsForAQuietRepoOnFakeClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		eng := &scriptEngine{changes: true}
		r := fakeRepo(t, eng, &scriptWaiter{}, nil)
		for range 5 {
			time.Sleep(200 * time.Millisecond)
			r.poke()
			synctest.Wait()
		}
		time.Sleep(time.Minute)
		synctest.Wait()
		want := []string{"pull 0s", "push 0s", "push 200ms", "push 400ms", "push 600ms", "push 800ms", "push 1s", "refresh 1.5s"}
		if got := eng.calledInOrder(); strings.Join(got, ", ") != strings.Join(want, ", ") {
			t.Errorf("calls = %q, want %q", got, want)
		}
	})
}

// retryAt is when source's retry is due.
func retryAt(r *repo, source string) time.Time {
	r.status.mu.Lock()
	defer r.status.mu.Unlock()
	return r.status.retries[source].at
}

func writeToken(t *testing.T, path, token string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(token), 0o600); err != nil {
		t.Fatal(err)
	}
}
