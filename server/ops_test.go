package server_test

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/teammemd/teammemd/internal/lockedbuf"
	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/servertest"
)

func TestAccessLog(t *testing.T) {
	var logs lockedbuf.Buffer
	s := servertest.Start(t, servertest.WithLogger(slog.New(slog.NewJSONHandler(&logs, nil))))
	body := "a body that must never be logged"
	put(t, s, repo, map[string]string{"a.md": body})
	getFull(t, s, repo)
	do(t, s.URL, req{repo: repo, headers: map[string]string{"Authorization": "Bearer tmd_wrongsecret"}})

	text := logs.String()
	for _, leak := range []string{s.Token, "tmd_wrongsecret", body} {
		if strings.Contains(text, leak) {
			t.Errorf("access log holds %q:\n%s", leak, text)
		}
	}
	var lines []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("log line %q is not JSON: %v", line, err)
		}
		if rec["msg"] == "request" {
			lines = append(lines, rec)
		}
	}
	if len(lines) != 3 {
		t.Fatalf("access log has %d request lines, want 3:\n%s", len(lines), text)
	}
	want := []struct {
		method, subject, repo string
		status                float64
	}{{"PUT", "servertest", repo, 200}, {"GET", "servertest", repo, 200}, {"GET", "", "", 401}}
	for i, w := range want {
		l := lines[i]
		if l["method"] != w.method || l["status"] != w.status || l["route"] != "team_memory" {
			t.Errorf("access log line %d = %v, want method %s status %v", i, l, w.method, w.status)
		}
		// What the request did not make known is left out, not logged empty.
		for k, v := range map[string]string{"subject": w.subject, "repo": w.repo} {
			if got, ok := l[k]; v == "" && ok || v != "" && got != v {
				t.Errorf("access log line %d = %v, want %s %q (absent when empty)", i, l, k, v)
			}
		}
		if _, ok := l["mode"]; w.subject == "" && ok {
			t.Errorf("access log line %d = %v, want no mode for a request not authenticated", i, l)
		}
		for _, k := range []string{"durationMs", "bytes"} {
			if _, ok := l[k]; !ok {
				t.Errorf("access log line %d has no %s: %v", i, k, l)
			}
		}
		// The client's address, as the budget of failed credentials counts
		// it, so that a refused client can be traced.
		if l["client"] != "127.0.0.1" {
			t.Errorf("access log line %d = %v, want client 127.0.0.1", i, l)
		}
	}
}

func TestMetrics(t *testing.T) {
	s := servertest.Start(t)
	put(t, s, repo, map[string]string{"a.md": "a"})
	do(t, s.URL, req{repo: "acme/none", token: s.Token})
	text := string(do(t, s.URL, req{path: "/metrics"}).body)
	for _, want := range []string{
		`teammemd_http_requests_total{code="200",route="team_memory"} 1`,
		`teammemd_http_requests_total{code="404",route="team_memory"} 1`,
		`teammemd_http_request_duration_seconds_count{route="team_memory"} 2`,
		`teammemd_store_operation_duration_seconds_count{op="apply"} 1`,
		`teammemd_change_waiters 0`,
		`teammemd_change_wait_refusals_total{reason="server"} 0`,
		`teammemd_change_wait_refusals_total{reason="subject"} 0`,
		`teammemd_put_bytes_total 24`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
}

func TestHealth(t *testing.T) {
	s := servertest.Start(t)
	for _, path := range []string{"/livez", "/readyz"} {
		if r := do(t, s.URL, req{path: path}); r.status != http.StatusOK {
			t.Errorf("GET %s = %d, want 200", path, r.status)
		}
	}
	if r := do(t, s.URL, req{path: "/nothing"}); r.status != http.StatusNotFound {
		t.Errorf("GET /nothing = %d, want 404", r.status)
	}
}

// TestConcurrentIfMatch races writers that all chain the same If-Match:
// each round exactly one wins, and every winner's entry survives.
func TestConcurrentIfMatch(t *testing.T) {
	s := servertest.Start(t)
	const rounds, writers = 8, 6
	current := api.EmptyRepoChecksum
	for round := range rounds {
		var wg sync.WaitGroup
		start := make(chan struct{})
		results := make([]reply, writers)
		for w := range writers {
			wg.Go(func() {
				<-start
				key := fmt.Sprintf("r%d/w%d.md", round, w)
				results[w] = do(t, s.URL, req{method: http.MethodPut, repo: repo, token: s.Token,
					body:    putBody(t, map[string]string{key: "x"}),
					headers: map[string]string{"If-Match": `"` + current + `"`}})
			})
		}
		close(start)
		wg.Wait()
		wins := 0
		for _, r := range results {
			switch r.status {
			case http.StatusOK:
				wins++
				var pr api.PutResponse
				decode(t, r, &pr)
				current = pr.Checksum
			case http.StatusPreconditionFailed:
			default:
				t.Fatalf("round %d: PUT = %d %s, want 200 or 412", round, r.status, r.body)
			}
		}
		if wins != 1 {
			t.Fatalf("round %d: %d writers won, want exactly 1", round, wins)
		}
	}
	h := getHashes(t, s, repo)
	if len(h.EntryChecksums) != rounds || h.Version != rounds || h.Checksum != current {
		t.Errorf("after %d rounds: %d entries version %d checksum %s, want %d entries version %d checksum %s",
			rounds, len(h.EntryChecksums), h.Version, h.Checksum, rounds, rounds, current)
	}
}
