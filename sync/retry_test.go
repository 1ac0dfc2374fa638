package memsync

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
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
		if rec["level"] != "WARN" || rec["repo"] != testRepo || rec["op"] != OpProbe || !strings.Contains(cause, wantCause[i]) || rec["retryInMs"] == nil {
			t.Errorf("retry log %d = %s, want WARN with repo %s, op %s, a cause with %q and retryInMs", i, line, testRepo, OpProbe, wantCause[i])
		}
		if ms, _ := rec["retryInMs"].(float64); int64(ms) != traced[i].Wait.Milliseconds() {
			t.Errorf("retry log %d: retryInMs %v, want the wait %s in milliseconds, %d", i, rec["retryInMs"], traced[i].Wait, traced[i].Wait.Milliseconds())
		}
		if tr := traced[i]; tr.Attempt != i+1 || tr.Attempts != 4 || tr.Repo != testRepo || !strings.Contains(tr.Cause, wantCause[i]) {
			t.Errorf("trace %d = %+v, want attempt %d of 4 for %s with a cause with %q", i, tr, i+1, testRepo, wantCause[i])
		}
	}
}

// TestBackoffBounds checks every schedule's wait: minWait·2^attempt capped
// at maxWait, drawn from its upper half, never negative nor overflowing.
func TestBackoffBounds(t *testing.T) {
	tests := []struct {
		minWait, maxWait time.Duration
		attempt          int
		full             time.Duration
	}{
		{time.Second, 30 * time.Second, 0, time.Second},
		{time.Second, 30 * time.Second, 3, 8 * time.Second},
		{time.Second, 30 * time.Second, 5, 30 * time.Second},
		{time.Second, 2 * time.Minute, 62, 2 * time.Minute},
		{time.Second, 2 * time.Minute, 1000, 2 * time.Minute},
		{time.Hour, time.Minute, 0, time.Minute},
		{1 << 40, 1 << 62, 30, 1 << 62},
		{0, time.Second, 4, time.Second},
		{time.Second, 0, 0, 0},
	}
	for _, tt := range tests {
		for range 50 {
			got := Backoff(tt.minWait, tt.maxWait, tt.attempt)
			if got < tt.full/2 || got > tt.full {
				t.Errorf("Backoff(%v, %v, %d) = %v, want within [%v, %v]", tt.minWait, tt.maxWait, tt.attempt, got, tt.full/2, tt.full)
				break
			}
		}
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	tests := []struct {
		header string
		want   time.Duration
		ok     bool
	}{
		{"7", 7 * time.Second, true},
		{" 7 ", 7 * time.Second, true},
		{"0", 0, true},
		{"86400", maxRetryAfter, true},
		{now.Add(-time.Hour).Format(http.TimeFormat), 0, true},
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second, true},
		{"-1", 0, false},
		{"soon", 0, false},
		{"", 0, false},
	}
	for _, tt := range tests {
		if got, ok := retryAfter(tt.header, now); got != tt.want || ok != tt.ok {
			t.Errorf("retryAfter(%q) = %v, %v, want %v, %v", tt.header, got, ok, tt.want, tt.ok)
		}
	}
}

// scriptTransport answers the n-th request with answers[n] in-process,
// so that a client runs inside a synctest bubble without a network: a 429
// with Retry-After 7, dropConn as a network error. It records when each
// request came.
type scriptTransport struct {
	answers []int
	at      []time.Time
}

func (st *scriptTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	st.at = append(st.at, time.Now())
	status := st.answers[len(st.at)-1]
	if status == dropConn {
		return nil, &net.OpError{Op: "read", Net: "tcp", Err: io.ErrUnexpectedEOF}
	}
	rec := httptest.NewRecorder()
	if status == http.StatusOK {
		rec.WriteString(hashesBody)
		return rec.Result(), nil
	}
	if status == http.StatusTooManyRequests {
		rec.Header().Set("Retry-After", "7")
	}
	rec.WriteHeader(status)
	rec.WriteString(`{"type":"error","error":{"type":"x","message":"m","details":{"error_code":"c"}}}`)
	return rec.Result(), nil
}

// TestClientRetrySchedule runs a request through a 429 with Retry-After, a
// 503 and a dropped connection on the fake clock: the client waits exactly
// what the server asked, then the backoff schedule, and each retry reports
// the wait it then keeps and whether the server was reached.
func TestClientRetrySchedule(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := &scriptTransport{answers: []int{http.StatusTooManyRequests, http.StatusServiceUnavailable, dropConn, http.StatusOK}}
		var traced []Retry
		c, err := NewClient("http://127.0.0.1:1", oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "t"}),
			WithRetry(4, time.Second, 30*time.Second), WithTransport(st))
		if err != nil {
			t.Fatal(err)
		}
		ctx := WithRetryTrace(context.Background(), func(r Retry) { traced = append(traced, r) })
		if _, err := c.Hashes(ctx, testRepo); err != nil {
			t.Fatalf("Hashes = %v, want success on the fourth attempt", err)
		}
		if len(st.at) != 4 || len(traced) != 3 {
			t.Fatalf("attempts %d, retries traced %d, want 4 and 3", len(st.at), len(traced))
		}
		bounds := [][2]time.Duration{{7 * time.Second, 7 * time.Second}, {time.Second, 2 * time.Second}, {2 * time.Second, 4 * time.Second}}
		unreached := []bool{false, false, true}
		for i, b := range bounds {
			gap := st.at[i+1].Sub(st.at[i])
			if gap < b[0] || gap > b[1] {
				t.Errorf("wait before attempt %d = %v, want within [%v, %v]", i+2, gap, b[0], b[1])
			}
			if traced[i].Wait != gap || traced[i].Unreached != unreached[i] {
				t.Errorf("retry %d traced wait %v, unreached %v; want %v, %v", i+1, traced[i].Wait, traced[i].Unreached, gap, unreached[i])
			}
		}
	})
}
