package server

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/teammemd/teammemd/server/auth"
	"github.com/teammemd/teammemd/server/store/sqlite"
)

// checkingAuth counts its revocation checks, each failing while failing
// is set, and signals the first.
type checkingAuth struct {
	auth.Authenticator
	checks  atomic.Int32
	failing atomic.Bool
	first   chan struct{}
	once    sync.Once
}

func (c *checkingAuth) CheckRevocations(context.Context) error {
	c.checks.Add(1)
	c.once.Do(func() { close(c.first) })
	if c.failing.Load() {
		return errors.New("store unreachable")
	}
	return nil
}

// TestServeWatchesRevocations checks that a server checks its
// authenticator's token revocations while it serves, the first check as
// it starts, and has stopped when Serve returns.
func TestServeWatchesRevocations(t *testing.T) {
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), sqlite.FileName), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	a := &checkingAuth{Authenticator: auth.NewTokenAuthenticator(st), first: make(chan struct{})}
	srv, err := New(Options{Store: st, Auth: a})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	select {
	case <-a.first:
	case <-time.After(10 * time.Second):
		t.Fatal("no revocation check within 10s of Serve")
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Serve() = %v", err)
	}
	if n := srv.identity.watched.Load(); n != 0 {
		t.Errorf("%d store watches still run after Serve returned, want 0", n)
	}
}

// TestWatchStoreLogsFailedChecks checks that the store watch checks the
// revocations every storeWatchEvery and logs a failing spell once, and its
// end.
func TestWatchStoreLogsFailedChecks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a := &checkingAuth{Authenticator: allowAll{}, first: make(chan struct{})}
		var logs bytes.Buffer // read once the watch is over
		s := &Server{identity: &storeIdentity{now: time.Now}, auth: a, log: slog.New(slog.NewTextHandler(&logs, nil)), watchWake: make(chan struct{}, 1)}
		stop := runStoreWatch(s)
		synctest.Wait()
		a.failing.Store(true)
		time.Sleep(3 * storeWatchEvery)
		a.failing.Store(false)
		time.Sleep(storeWatchEvery)
		synctest.Wait()
		stop()
		if n := a.checks.Load(); n != 5 {
			t.Errorf("%d checks in %v, want 5 (one at the start, one every %v)", n, 4*storeWatchEvery, storeWatchEvery)
		}
		if got := strings.Count(logs.String(), "token revocations not checked"); got != 1 {
			t.Errorf("3 failed checks logged %d times, want once:\n%s", got, logs.String())
		}
		if !strings.Contains(logs.String(), "token revocations checked again") {
			t.Errorf("the checks' recovery is not logged:\n%s", logs.String())
		}
	})
}

// TestWatchStorePausesWhenQuiet checks that the store watch stops reading
// the store once no request came for storeWatchQuiet, and its ticks with
// it, hands the identity back to the requests meanwhile, and resumes as a
// request comes, ticking again from there.
func TestWatchStorePausesWhenQuiet(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a := &checkingAuth{Authenticator: allowAll{}, first: make(chan struct{})}
		src := &countedIdentity{}
		src.id.Store("one")
		s := &Server{identity: &storeIdentity{src: src, now: time.Now}, auth: a, log: slog.New(slog.DiscardHandler), watchWake: make(chan struct{}, 1)}
		stop := runStoreWatch(s)
		time.Sleep(storeWatchQuiet + storeWatchEvery/2)
		synctest.Wait()
		active := a.checks.Load()
		if want := int32(storeWatchQuiet/storeWatchEvery) + 1; active != want {
			t.Errorf("%d checks in the first %v, want %d", active, storeWatchQuiet, want)
		}
		time.Sleep(10 * storeWatchEvery)
		synctest.Wait()
		if n := a.checks.Load(); n != active || src.reads.Load() != active || s.identity.watched.Load() != 0 {
			t.Errorf("quiet for %v more: %d checks, %d identity reads, watched %d; want %d, %d, 0",
				10*storeWatchEvery, n, src.reads.Load(), s.identity.watched.Load(), active, active)
		}
		src.id.Store("two")
		if got := s.identity.get(context.Background()); got != "two" {
			t.Errorf("identity while the watch pauses = %q, want two, read by the request", got)
		}
		s.noteRequest(time.Now())
		synctest.Wait()
		if n := a.checks.Load(); n != active+1 || s.identity.watched.Load() != 1 {
			t.Errorf("right after a request: %d checks, watched %d; want %d, 1", n, s.identity.watched.Load(), active+1)
		}
		time.Sleep(storeWatchEvery + storeWatchEvery/2)
		synctest.Wait()
		if n := a.checks.Load(); n != active+2 {
			t.Errorf("a tick after the request: %d checks, want %d", n, active+2)
		}
		stop()
	})
}

// runStoreWatch runs s's store watch until the returned stop, which
// returns once the watch is over.
func runStoreWatch(s *Server) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		s.watchStore(ctx)
		close(done)
	}()
	return func() {
		cancel()
		<-done
	}
}
