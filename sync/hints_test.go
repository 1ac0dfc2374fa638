package memsync

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/servertest"
)

// writeHints counts a wait's failures on the way to the server while no
// hint came through, and turns hints off at the last allowed; what
// another cause ended, or a way that passed a hint, counts nothing.
func TestWriteHintsAttempted(t *testing.T) {
	log := slog.New(slog.DiscardHandler)
	status := func(code int) *http.Response { return &http.Response{StatusCode: code} }
	broken := errors.New("malformed HTTP response")
	stopped, stop := context.WithCancel(context.Background())
	stop()
	ctx := context.Background()

	var h writeHints
	for _, a := range []struct {
		ctx  context.Context
		resp *http.Response
		err  error
	}{
		{ctx, status(http.StatusOK), nil},
		{ctx, status(http.StatusNotModified), nil},
		{ctx, status(http.StatusServiceUnavailable), nil}, // the server's own answer
		{stopped, nil, context.Canceled},
		{ctx, nil, broken},
		{ctx, status(http.StatusBadGateway), nil},
	} {
		h.attempted(a.ctx, log, a.resp, a.err)
	}
	if h.off.Load() || h.failures.Load() != 2 {
		t.Fatalf("after two failures on the way: off %v, failures %d; want on, 2", h.off.Load(), h.failures.Load())
	}
	if _, header := h.ask(ctx); header.Get(api.HeaderHint) != api.HintWrite {
		t.Fatalf("header while on = %v, want %s: %s", header, api.HeaderHint, api.HintWrite)
	}
	h.attempted(ctx, log, status(http.StatusGatewayTimeout), nil)
	if !h.off.Load() {
		t.Fatal("hints still on after the third failure on the way")
	}
	if _, header := h.ask(ctx); header != nil {
		t.Fatalf("header once off = %v, want none", header)
	}

	var seen writeHints
	seen.seen.Store(true)
	for range maxHintFailures + 1 {
		seen.attempted(ctx, log, nil, broken)
	}
	if seen.off.Load() {
		t.Error("hints turned off on a way that passed one")
	}
}

// waitOnce sends one change wait of c from inm and returns its outcome.
func waitOnce(c *Client, inm string) <-chan error {
	out := make(chan error, 1)
	go func() {
		_, changed, err := c.Wait(context.Background(), testRepo, inm, 20*time.Second)
		if err == nil && !changed {
			err = errors.New("the wait timed out")
		}
		out <- err
	}()
	return out
}

// The daemon's client asks for write hints: a teammate's write reaches
// its wait as a hint, then as the answer.
func TestWaitTakesAWriteHint(t *testing.T) {
	srv := servertest.Start(t)
	teammate := testClient(t, srv.URL, srv.Token)
	first := putEntries(t, teammate, "", map[string]string{"a.md": "a"})
	c := testClient(t, srv.URL, srv.Token, WithInstance())
	got := waitOnce(c, first)
	awaitParked(t, srv)
	putEntries(t, teammate, first, map[string]string{"b.md": "b"})
	if err := <-got; err != nil {
		t.Fatal(err)
	}
	if !c.hints.seen.Load() || c.hints.off.Load() {
		t.Errorf("hints seen %v, off %v; want seen and on", c.hints.seen.Load(), c.hints.off.Load())
	}
}

// Behind a proxy that breaks the connection on an informational response,
// each teammate's write breaks the wait's attempt (its retry is answered
// at once); after maxHintFailures the client asks no more, and its waits
// then pass unbroken.
func TestWriteHintsOffBehindABrokenProxy(t *testing.T) {
	srv := servertest.Start(t)
	proxy := startHintBreakingProxy(t, srv.Addr)
	teammate := testClient(t, srv.URL, srv.Token)
	at := putEntries(t, teammate, "", map[string]string{"a.md": "a"})
	c := testClient(t, "http://"+proxy.addr, srv.Token, WithInstance())
	for i := range maxHintFailures + 2 {
		got := waitOnce(c, at)
		awaitParked(t, srv)
		at = putEntries(t, teammate, at, map[string]string{"b.md": strings.Repeat("b", i+1)})
		if err := <-got; err != nil {
			t.Fatalf("wait %d through the proxy: %v", i+1, err)
		}
	}
	if !c.hints.off.Load() || c.hints.seen.Load() {
		t.Errorf("hints off %v, seen %v; want off and never seen", c.hints.off.Load(), c.hints.seen.Load())
	}
	if n := proxy.broken(); n != maxHintFailures {
		t.Errorf("connections the proxy broke = %d, want %d", n, maxHintFailures)
	}
}

// putEntries PUTs entries with c If-Match ifMatch and returns the new
// checksum.
func putEntries(t *testing.T, c *Client, ifMatch string, entries map[string]string) string {
	t.Helper()
	body, err := json.Marshal(api.PutRequest{Entries: entries})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Put(context.Background(), testRepo, ifMatch, body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.Checksum
}

// hintBreakingProxy relays loopback connections to a server and breaks
// any on which the server sends an informational response, as a proxy
// that takes a 1xx for the final answer and garbles what follows.
type hintBreakingProxy struct {
	addr string
	mu   sync.Mutex
	n    int
}

func (p *hintBreakingProxy) broken() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.n
}

func startHintBreakingProxy(t *testing.T, upstream string) *hintBreakingProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &hintBreakingProxy{addr: ln.Addr().String()}
	var wg sync.WaitGroup
	t.Cleanup(func() {
		ln.Close()
		wg.Wait()
	})
	wg.Go(func() {
		for {
			down, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Go(func() { p.relay(down, upstream) })
		}
	})
	return p
}

// relay copies one connection both ways until either side closes it, or
// the server's bytes hold a 1xx status line.
func (p *hintBreakingProxy) relay(down net.Conn, upstream string) {
	defer down.Close()
	up, err := net.DialTimeout("tcp", upstream, 10*time.Second)
	if err != nil {
		return
	}
	defer up.Close()
	go func() {
		_, _ = io.Copy(up, down)
		up.Close()
	}()
	buf := make([]byte, 32<<10)
	for {
		n, err := up.Read(buf)
		if n > 0 && bytes.Contains(buf[:n], []byte("HTTP/1.1 103")) {
			p.mu.Lock()
			p.n++
			p.mu.Unlock()
			_, _ = down.Write([]byte("HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"))
			return
		}
		if n > 0 {
			if _, werr := down.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// hintCounter counts the requests that carry the write hint header.
type hintCounter struct {
	next http.RoundTripper
	n    atomic.Int64
}

func (h *hintCounter) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Header.Get(api.HeaderHint) != "" {
		h.n.Add(1)
	}
	return h.next.RoundTrip(req)
}

// An engine announces a write only once it holds a checksum; its
// announcement reaches a teammate's hinted wait before any write does.
func TestEngineAnnouncesAWrite(t *testing.T) {
	srv := servertest.Start(t)
	hc := &hintCounter{next: http.DefaultTransport}
	a := newPeer(t, srv.URL, srv.Token, nil, WithInstance(), WithTransport(hc))
	a.eng.AnnounceWrite(context.Background())
	if n := hc.n.Load(); n != 0 {
		t.Fatalf("an engine that never synced sent %d announcements, want none", n)
	}
	a.write(t, "one.md", "1")
	a.sync(t)
	b := testClient(t, srv.URL, srv.Token, WithInstance())
	got := waitOnce(b, a.eng.Checksum())
	awaitParked(t, srv)
	a.eng.AnnounceWrite(context.Background())
	for i := 0; !b.hints.seen.Load(); i++ {
		if i == 1000 {
			t.Fatal("the teammate's wait never heard of the announced write")
		}
		time.Sleep(5 * time.Millisecond)
	}
	a.write(t, "one.md", "2")
	a.sync(t)
	if err := <-got; err != nil {
		t.Fatal(err)
	}
}

// A server that is down (its port refuses connections) never saw the
// wait, so no hint broke it: waits that fail to connect leave the hints on
// for when the server is back.
func TestWriteHintsStayOnWhileTheServerIsDown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	c := testClient(t, "http://"+addr, "tmd_test", WithInstance())
	for i := range maxHintFailures + 1 {
		if _, _, err := c.Wait(context.Background(), testRepo, "", time.Second); err == nil {
			t.Fatalf("wait %d to a closed port succeeded", i+1)
		}
	}
	if c.hints.off.Load() {
		t.Errorf("hints off after %d waits to a server that was down, want on", maxHintFailures+1)
	}
}
