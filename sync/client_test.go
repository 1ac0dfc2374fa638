package memsync

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/teammemd/teammemd/server/api"
)

// hashesBody is a valid hash probe answer.
const hashesBody = `{"organizationId":"o","repo":"acme/app","version":1,"lastModified":"2026-01-01T00:00:00Z",` +
	`"checksum":"sha256:00","entryChecksums":{},"deletedEntries":{}}`

// dropConn is a status that makes the test server close the connection
// without an answer, a network error.
const dropConn = -1

// scriptedServer answers the n-th request with statuses[n] (the last one
// repeating) and counts the requests.
func scriptedServer(t *testing.T, statuses ...int) (*httptest.Server, *atomic.Int32) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := int(n.Add(1)) - 1
		status := statuses[min(i, len(statuses)-1)]
		switch status {
		case dropConn:
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
			return
		case http.StatusOK:
			w.Write([]byte(hashesBody))
			return
		case http.StatusTooManyRequests:
			w.Header().Set("Retry-After", "0")
		}
		code := "c"
		if status == http.StatusNotFound {
			code = api.CodeNotFound // a repo never written, as a teammemd server says it
		}
		w.WriteHeader(status)
		w.Write([]byte(`{"type":"error","error":{"type":"x","message":"m","details":{"error_code":"` + code + `"}}}`))
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func TestClientRetries(t *testing.T) {
	tests := []struct {
		name     string
		statuses []int
		attempts int32
		status   int // 0: success
	}{
		{"5xx then success", []int{503, 200}, 2, 0},
		{"429 then success", []int{429, 200}, 2, 0},
		{"network error then success", []int{dropConn, 200}, 2, 0},
		{"5xx until retries run out", []int{500}, 3, 500},
		{"400 is not retried", []int{400, 200}, 1, 400},
		{"404 is not retried", []int{404, 200}, 1, 404},
		{"412 is not retried", []int{412, 200}, 1, 412},
		{"413 is not retried", []int{413, 200}, 1, 413},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, n := scriptedServer(t, tt.statuses...)
			c, err := NewClient(srv.URL, oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "t"}),
				WithRetry(2, time.Millisecond, 2*time.Millisecond))
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.Hashes(context.Background(), testRepo)
			var ae *api.Error
			switch {
			case tt.status == 0 && err != nil:
				t.Errorf("Hashes = %v, want success", err)
			case tt.status != 0 && (!errors.As(err, &ae) || ae.Status != tt.status):
				t.Errorf("Hashes = %v, want a %d *api.Error", err, tt.status)
			}
			if got := n.Load(); got != tt.attempts {
				t.Errorf("requests = %d, want %d", got, tt.attempts)
			}
		})
	}
}
