package memsync

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/oauth2"
)

const redirectToken = "tmd_redirect-test-secret"

// tokenSink is a server that must never be reached: it counts the requests
// it gets and those that carry the token.
func tokenSink(t *testing.T) (*httptest.Server, *atomic.Int32, *atomic.Int32) {
	var requests, tokens atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		if strings.Contains(r.Header.Get("Authorization"), redirectToken) {
			tokens.Add(1)
		}
		w.Write([]byte(hashesBody))
	}))
	t.Cleanup(srv.Close)
	return srv, &requests, &tokens
}

// redirector answers every request with status and a Location on to, same
// path and query.
func redirector(t *testing.T, status int, to string) (*httptest.Server, *atomic.Int32) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		http.Redirect(w, r, to+r.URL.RequestURI(), status)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

// TestRedirectToOtherOriginKeepsToken has the server redirect every call
// to another port of the same host: the client follows none of them, the
// other server never sees a request, let alone the token, and the error
// names both origins but not the token.
func TestRedirectToOtherOriginKeepsToken(t *testing.T) {
	sink, sinkRequests, sinkTokens := tokenSink(t)
	for _, status := range []int{http.StatusMovedPermanently, http.StatusFound, http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		from, fromRequests := redirector(t, status, sink.URL)
		c, err := NewClient(from.URL, oauth2.StaticTokenSource(&oauth2.Token{AccessToken: redirectToken}),
			WithRetry(2, time.Millisecond, 2*time.Millisecond))
		if err != nil {
			t.Fatal(err)
		}
		calls := []struct {
			name string
			do   func() error
		}{
			{"Hashes", func() error { _, err := c.Hashes(context.Background(), testRepo); return err }},
			{"Get", func() error { _, _, err := c.Get(context.Background(), testRepo, ""); return err }},
			{"Put", func() error {
				_, err := c.Put(context.Background(), testRepo, "", []byte(`{"entries":{"a.md":"a"}}`))
				return err
			}},
		}
		for _, call := range calls {
			fromRequests.Store(0)
			err := call.do()
			msg := ""
			if err != nil {
				msg = err.Error()
			}
			if err == nil || !strings.Contains(msg, from.URL) || !strings.Contains(msg, sink.URL) || strings.Contains(msg, redirectToken) {
				t.Errorf("%s answered %d to another origin: error %q, want one naming %s and %s, without the token", call.name, status, msg, from.URL, sink.URL)
			}
			if got := fromRequests.Load(); got != 1 {
				t.Errorf("%s answered %d to another origin: %d requests, want 1 (not retried)", call.name, status, got)
			}
		}
	}
	if n, tok := sinkRequests.Load(), sinkTokens.Load(); n != 0 || tok != 0 {
		t.Errorf("the other origin got %d requests, %d with the token, want none", n, tok)
	}
}

// TestRedirectWithinOriginFollowed checks that a redirect to another path
// of the same server is still followed, with the token.
func TestRedirectWithinOriginFollowed(t *testing.T) {
	var authorized atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("/moved/", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") == "Bearer "+redirectToken {
			authorized.Add(1)
		}
		w.Write([]byte(hashesBody))
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/moved"+r.URL.RequestURI(), http.StatusTemporaryRedirect)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	c, err := NewClient(srv.URL, oauth2.StaticTokenSource(&oauth2.Token{AccessToken: redirectToken}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Hashes(context.Background(), testRepo); err != nil || authorized.Load() != 1 {
		t.Errorf("Hashes redirected within the server = %v, %d authorized requests at the new path, want success and 1", err, authorized.Load())
	}
}

func TestOrigin(t *testing.T) {
	tests := []struct{ in, want string }{
		{"http://127.0.0.1:8787/api", "http://127.0.0.1:8787"},
		{"HTTP://Example.COM/x", "http://example.com:80"},
		{"http://example.com:80", "http://example.com:80"},
		{"https://example.com", "https://example.com:443"},
		{"https://example.com:8443", "https://example.com:8443"},
		{"http://[::1]:8787/", "http://[::1]:8787"},
		{"http://user@example.com:81/", "http://example.com:81"},
	}
	for _, tt := range tests {
		u, err := url.Parse(tt.in)
		if err != nil {
			t.Fatal(err)
		}
		if got := origin(u); got != tt.want {
			t.Errorf("origin(%s) = %s, want %s", tt.in, got, tt.want)
		}
	}
}
