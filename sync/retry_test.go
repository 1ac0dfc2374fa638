package memsync

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/oauth2"
)

// TestRetryReportsCause checks that each retry is logged once at Warn with
// the repo, its cause and the wait before the next attempt, never the token,
// and reaches the context's retry trace.
func TestRetryReportsCause(t *testing.T) {
	srv, _ := scriptedServer(t, dropConn, http.StatusServiceUnavailable, http.StatusOK)
	var buf bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelWarn}))
	const token = "tmd_secret-token"
	c, err := NewClient(srv.URL, oauth2.StaticTokenSource(&oauth2.Token{AccessToken: token}),
		WithRetry(3, time.Millisecond, 2*time.Millisecond), WithLogger(log))
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var traced []Retry
	ctx := WithRetryTrace(context.Background(), func(r Retry) {
		mu.Lock()
		defer mu.Unlock()
		traced = append(traced, r)
	})
	if _, err := c.Hashes(ctx, testRepo); err != nil {
		t.Fatalf("Hashes = %v, want success on the third attempt", err)
	}
	if strings.Contains(buf.String(), token) {
		t.Errorf("retry log holds the token: %s", buf.String())
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 || len(traced) != 2 {
		t.Fatalf("retries logged %d, traced %d, want 2 and 2: %s", len(lines), len(traced), buf.String())
	}
	wantCause := []string{"EOF", "HTTP 503 Service Unavailable"}
	for i, line := range lines {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatal(err)
		}
		cause, _ := rec["cause"].(string)
		if rec["level"] != "WARN" || rec["repo"] != testRepo || rec["op"] != OpProbe || !strings.Contains(cause, wantCause[i]) || rec["retryIn"] == nil {
			t.Errorf("retry log %d = %s, want WARN with repo %s, op %s, a cause with %q and retryIn", i, line, testRepo, OpProbe, wantCause[i])
		}
		if tr := traced[i]; tr.Attempt != i+1 || tr.Attempts != 4 || tr.Repo != testRepo || !strings.Contains(tr.Cause, wantCause[i]) {
			t.Errorf("trace %d = %+v, want attempt %d of 4 for %s with a cause with %q", i, tr, i+1, testRepo, wantCause[i])
		}
	}
}
