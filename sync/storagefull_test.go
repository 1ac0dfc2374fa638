package memsync

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/teammemd/teammemd/server/api"
)

// A push the server answers 507 is retried as any 5xx is, each retry's
// cause saying that the server's storage is full, and fails, once the
// retries are spent, with a *StorageFullError that says so around the
// server's answer: retry later, the files keep their changes.
func TestPushToAFullServer(t *testing.T) {
	srv, n := scriptedServer(t, http.StatusInsufficientStorage)
	c, err := NewClient(srv.URL, oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "t"}), WithRetry(2, time.Millisecond, time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var causes []string
	ctx := WithRetryTrace(context.Background(), func(r Retry) {
		mu.Lock()
		defer mu.Unlock()
		causes = append(causes, r.Cause)
	})
	_, err = c.Put(ctx, testRepo, "", []byte(`{"entries":{"a.md":"a"}}`))
	var full *StorageFullError
	var ae *api.Error
	if !errors.As(err, &full) || !errors.As(err, &ae) || ae.Status != http.StatusInsufficientStorage {
		t.Fatalf("Put answered 507 = %v; want a *StorageFullError around the server's 507", err)
	}
	if !strings.Contains(err.Error(), "the server's storage is full (HTTP 507)") {
		t.Errorf("Put answered 507 = %q; want it to say the server's storage is full", err)
	}
	if got := Classify(err); got != RetryLater {
		t.Errorf("Classify(507) = %v, want %v", got, RetryLater)
	}
	if n.Load() != 3 || len(causes) != 2 {
		t.Fatalf("%d attempts with %d retries traced, want 3 and 2", n.Load(), len(causes))
	}
	for i, cause := range causes {
		if cause != "the server's storage is full (HTTP 507)" {
			t.Errorf("retry %d cause = %q, want the server's storage is full (HTTP 507)", i, cause)
		}
	}
}
