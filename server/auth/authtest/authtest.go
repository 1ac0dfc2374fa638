// Package authtest runs loopback fakes of the identity services a teammemd
// server trusts, for tests: an OpenID Connect provider that signs real JWTs
// and serves device login, GitHub's REST API answering repo permissions, and
// claude.ai's OAuth profile endpoint. They listen on 127.0.0.1 only, and
// Client refuses any other host, so no test reaches the real services.
package authtest

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// Clock is a settable clock shared by a fake and the code under test, so a
// test moves time past a token's expiry without waiting.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// NewClock returns a clock at the current time.
func NewClock() *Clock { return &Clock{t: time.Now()} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// Client is an HTTP client for the code under test that fails t on a
// request to anything but a loopback address.
func Client(t testing.TB) *http.Client {
	return &http.Client{Timeout: 10 * time.Second, Transport: loopbackOnly{t: t, next: http.DefaultTransport}}
}

type loopbackOnly struct {
	t    testing.TB
	next http.RoundTripper
}

func (l loopbackOnly) RoundTrip(r *http.Request) (*http.Response, error) {
	ip := net.ParseIP(r.URL.Hostname())
	if ip == nil || !ip.IsLoopback() {
		l.t.Errorf("authtest: request to %s, which is not a loopback address", r.URL.Host)
		return nil, fmt.Errorf("authtest: %s is not a loopback address", r.URL.Host)
	}
	return l.next.RoundTrip(r)
}

// serve starts h on 127.0.0.1 until the test ends.
func serve(t testing.TB, h http.Handler) *httptest.Server {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("authtest: listen: %v", err)
	}
	srv := &httptest.Server{Listener: ln, Config: &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
}

// writeJSON sends v with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// bearer returns the credential of an Authorization: Bearer header.
func bearer(r *http.Request) string {
	const prefix = "Bearer "
	h := r.Header.Get("Authorization")
	if len(h) <= len(prefix) || h[:len(prefix)] != prefix {
		return ""
	}
	return h[len(prefix):]
}
