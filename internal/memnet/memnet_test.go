package memnet

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// serve runs an HTTP server with h on a new listener of n until the test
// ends and returns its base URL.
func serve(t *testing.T, n *Network, h http.Handler) string {
	t.Helper()
	ln, err := n.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatalf("Listen() error: %v", err)
	}
	srv := &http.Server{Handler: h}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	t.Cleanup(func() {
		srv.Close()
		if err := <-done; !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("Serve() = %v, want http.ErrServerClosed", err)
		}
	})
	return "http://" + ln.Addr().String()
}

func get(t *testing.T, c *http.Client, url string) string {
	t.Helper()
	resp, err := c.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: read body: %v", url, err)
	}
	return string(body)
}

func TestHTTPRoundTrip(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := New()
		url := serve(t, n, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, r.Method+" "+r.URL.Path+" from "+r.RemoteAddr)
		}))
		tr := n.Transport()
		defer tr.CloseIdleConnections()
		c := &http.Client{Transport: tr}
		for range 3 { // the second and third reuse the kept-alive connection
			got := get(t, c, url+"/x")
			if !strings.HasPrefix(got, "GET /x from 127.0.0.1:") {
				t.Errorf("GET /x = %q, want it from a 127.0.0.1 address", got)
			}
		}
	})
}

// A request the server holds for a minute of the bubble's clock ends with
// the server's timer: both sides block durably on the pipe, so the clock
// advances (over TCP it never would, and the test would hang).
func TestLongPollAdvancesFakeClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := New()
		url := serve(t, n, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-time.After(time.Minute):
				io.WriteString(w, "timeout")
			case <-r.Context().Done():
			}
		}))
		tr := n.Transport()
		defer tr.CloseIdleConnections()
		if got := get(t, &http.Client{Transport: tr}, url); got != "timeout" {
			t.Errorf("long poll = %q, want timeout", got)
		}
	})
}

func TestClientTimeoutEndsRequest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := New()
		release := make(chan struct{})
		url := serve(t, n, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-release:
			case <-r.Context().Done():
			}
		}))
		defer close(release)
		tr := n.Transport()
		defer tr.CloseIdleConnections()
		_, err := (&http.Client{Transport: tr, Timeout: 5 * time.Second}).Get(url)
		var ne net.Error
		if !errors.As(err, &ne) || !ne.Timeout() {
			t.Errorf("GET with a 5s timeout = %v, want a timeout", err)
		}
	})
}

func TestDialNobodyListening(t *testing.T) {
	n := New()
	_, err := n.DialContext(context.Background(), "tcp", "127.0.0.1:9")
	if !errors.Is(err, ErrRefused) {
		t.Errorf("DialContext(127.0.0.1:9) = %v, want ErrRefused", err)
	}
}

func TestDialCanceled(t *testing.T) {
	n := New()
	ln, err := n.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := n.DialContext(ctx, "tcp", ln.Addr().String()); !errors.Is(err, context.Canceled) {
		t.Errorf("DialContext(canceled) = %v, want context.Canceled", err)
	}
}

func TestListenAddresses(t *testing.T) {
	n := New()
	a, err := n.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	b, err := n.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if a.Addr().String() == b.Addr().String() {
		t.Errorf("two listens on port 0 both got %s", a.Addr())
	}
	if _, err := n.Listen(a.Addr().String()); err == nil {
		t.Errorf("Listen(%s) while in use succeeded, want an error", a.Addr())
	}
	if _, err := n.Listen("no-port"); err == nil {
		t.Error("Listen(no-port) succeeded, want an error")
	}
	a.Close()
	if _, err := a.Accept(); !errors.Is(err, net.ErrClosed) {
		t.Errorf("Accept() after Close = %v, want net.ErrClosed", err)
	}
	if _, err := n.DialContext(context.Background(), "tcp", a.Addr().String()); !errors.Is(err, ErrRefused) {
		t.Errorf("DialContext after Close = %v, want ErrRefused", err)
	}
	again, err := n.Listen(a.Addr().String())
	if err != nil {
		t.Fatalf("Listen(%s) after Close: %v", a.Addr(), err)
	}
	again.Close()
}
