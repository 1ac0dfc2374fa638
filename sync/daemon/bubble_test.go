package daemon

import (
	"net"
	"net/http"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/teammemd/teammemd/internal/memnet"
	"github.com/teammemd/teammemd/server/servertest"
	"github.com/teammemd/teammemd/watch"
	"github.com/teammemd/teammemd/watch/watchtest"
)

// Most tests here run the real daemon, server and SQLite store in a
// testing/synctest bubble, on its fake clock: started with bubble, they
// reach the server over an in-memory network (memnet) whose connections
// block durably, and their watchers poll the team directory on the fake
// clock (watchtest) instead of reading fsnotify, whose wait in the
// kernel would hold the clock still. A wait of the daemon or of the test
// then takes no real time. A few tests, marked so, keep the real fsnotify
// watcher and real TCP on 127.0.0.1, to prove the production wiring; they
// wait in real time.

// networks holds the in-memory network of each test running in a bubble,
// by the bubble's *testing.T.
var networks sync.Map

// bubble runs f in a synctest bubble with an in-memory network of its own.
// Everything f starts must end by the time it returns: servers, daemons
// and stores stop in t.Cleanup, which runs inside the bubble.
func bubble(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	// The scanner is shared by every test: build it outside any bubble.
	if _, err := testScanner(); err != nil {
		t.Fatal(err)
	}
	synctest.Test(t, func(t *testing.T) {
		networks.Store(t, memnet.New())
		t.Cleanup(func() { networks.Delete(t) })
		f(t)
	})
}

// network returns the in-memory network of t's bubble, or nil outside one.
func network(t testing.TB) *memnet.Network {
	n, ok := networks.Load(t)
	if !ok {
		return nil
	}
	return n.(*memnet.Network)
}

func inBubble(t testing.TB) bool { return network(t) != nil }

// newTransport returns a transport for one client: over the bubble's
// network, closed when the test ends, or a clone of the default one.
func newTransport(t testing.TB) *http.Transport {
	n := network(t)
	if n == nil {
		return http.DefaultTransport.(*http.Transport).Clone()
	}
	tr := n.Transport()
	t.Cleanup(tr.CloseIdleConnections)
	return tr
}

// notifyIn is the watchers' notifier in t: polling on the fake clock in a
// bubble, fsnotify (nil) outside one.
func notifyIn(t testing.TB) func() (watch.Notifier, error) {
	if !inBubble(t) {
		return nil
	}
	return watchtest.Polling(0)
}

// startServer starts the real server with a SQLite store (servertest.Start)
// on the bubble's network, or on 127.0.0.1 outside a bubble.
func startServer(t testing.TB, opts ...servertest.Option) *servertest.Server {
	t.Helper()
	if n := network(t); n != nil {
		opts = append(opts, servertest.WithListen(n.Listen))
	}
	return servertest.Start(t, opts...)
}

// newLoopbackServer serves h until the test ends, on the bubble's network
// or on 127.0.0.1, and returns its base URL.
func newLoopbackServer(t *testing.T, h http.Handler) string {
	t.Helper()
	var ln net.Listener
	var err error
	if n := network(t); n != nil {
		ln, err = n.Listen("127.0.0.1:0")
	} else {
		ln, err = net.Listen("tcp", "127.0.0.1:0")
	}
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	done := make(chan struct{})
	go func() { defer close(done); _ = srv.Serve(ln) }()
	t.Cleanup(func() { srv.Close(); <-done })
	return "http://" + ln.Addr().String()
}
