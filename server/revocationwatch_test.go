package server

import (
	"context"
	"log/slog"
	"net"
	"path/filepath"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/auth"
	"github.com/teammemd/teammemd/server/store/sqlite"
)

// watchingAuth records its revocation watch's start and end.
type watchingAuth struct {
	auth.Authenticator
	started, ended chan struct{}
}

func (w *watchingAuth) WatchRevocations(ctx context.Context, _ *slog.Logger) {
	close(w.started)
	<-ctx.Done()
	close(w.ended)
}

// TestServeWatchesRevocations checks that a server runs its
// authenticator's revocation watch while it serves, and that the watch has
// ended when Serve returns.
func TestServeWatchesRevocations(t *testing.T) {
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), sqlite.FileName), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	a := &watchingAuth{Authenticator: auth.NewTokenAuthenticator(st), started: make(chan struct{}), ended: make(chan struct{})}
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
	case <-a.started:
	case <-time.After(10 * time.Second):
		t.Fatal("the revocation watch did not start within 10s of Serve")
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Serve() = %v", err)
	}
	select {
	case <-a.ended:
	default:
		t.Error("the revocation watch still runs after Serve returned")
	}
}
