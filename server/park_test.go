package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/servertest"
)

// waitRequest is a raw HTTP/1.1 change wait of n seconds on repo.
func waitRequest(s *servertest.Server, inm, wait string) string {
	return "GET " + api.Path + "?" + memQuery(repo, "view", "hashes", "wait", wait) + " HTTP/1.1\r\nHost: " + s.Addr +
		"\r\nAuthorization: Bearer " + s.Token + "\r\nIf-None-Match: " + api.ETag(inm) + "\r\n\r\n"
}

// dialWait sends raw on a new connection and returns the connection.
func dialWait(t *testing.T, s *servertest.Server, raw string) net.Conn {
	t.Helper()
	conn, err := net.DialTimeout("tcp", s.Addr, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if err := conn.SetDeadline(time.Now().Add(30 * time.Second)); err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(conn, raw); err != nil {
		t.Fatal(err)
	}
	return conn
}

// readAnswer reads one response from conn, and then expects the server to
// have closed the connection.
func readAnswer(t *testing.T, conn net.Conn) (*http.Response, []byte) {
	t.Helper()
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("read the wait's answer: %v", err)
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read the wait's body: %v", err)
	}
	if n, err := br.Read(make([]byte, 1)); n != 0 || err != io.EOF {
		t.Errorf("after the answer: read %d bytes, %v; want the connection closed", n, err)
	}
	return resp, body
}

// TestParkedWaitAnswers holds a change wait the way the server parks it,
// and checks each way it ends: a write answers 200 with the new hashes, a
// timeout 304, each as a whole response with the headers any answer has,
// that closes the connection; and the slot is given back each time.
func TestParkedWaitAnswers(t *testing.T) {
	s := servertest.Start(t)
	first := put(t, s, repo, map[string]string{"a.md": "a"})

	conn := dialWait(t, s, waitRequest(s, first.Checksum, "30"))
	awaitWaiters(t, s, 1)
	second := put(t, s, repo, map[string]string{"b.md": "b"})
	resp, body := readAnswer(t, conn)
	var h api.HashesResponse
	if err := json.Unmarshal(body, &h); err != nil {
		t.Fatalf("answer body %q: %v", body, err)
	}
	if resp.StatusCode != http.StatusOK || resp.Header.Get("ETag") != api.ETag(second.Checksum) || h.Checksum != second.Checksum ||
		resp.Header.Get("Content-Type") != "application/json" || resp.Header.Get(api.StoreIDHeader) == "" || !resp.Close {
		t.Errorf("woken wait = %d %v %s, want 200 with the new hashes, ETag, Content-Type, %s, Connection: close",
			resp.StatusCode, resp.Header, body, api.StoreIDHeader)
	}
	awaitWaiters(t, s, 0)

	conn = dialWait(t, s, waitRequest(s, second.Checksum, "1"))
	resp, _ = readAnswer(t, conn)
	if resp.StatusCode != http.StatusNotModified || resp.Header.Get("ETag") != api.ETag(second.Checksum) {
		t.Errorf("timed-out wait = %d ETag %q, want 304 with ETag %q", resp.StatusCode, resp.Header.Get("ETag"), api.ETag(second.Checksum))
	}
	awaitWaiters(t, s, 0)
}

// TestParkedWaitClientLeaves closes the connection of a parked wait: the
// server notices and gives its slot back.
func TestParkedWaitClientLeaves(t *testing.T) {
	s := servertest.Start(t)
	first := put(t, s, repo, map[string]string{"a.md": "a"})
	conn := dialWait(t, s, waitRequest(s, first.Checksum, "60"))
	awaitWaiters(t, s, 1)
	conn.Close()
	awaitWaiters(t, s, 0)
}

// TestParkedWaitPipelined sends more after the wait's request: the server
// cannot hold the wait without losing it, so it answers 304 at once.
func TestParkedWaitPipelined(t *testing.T) {
	s := servertest.Start(t)
	first := put(t, s, repo, map[string]string{"a.md": "a"})
	raw := waitRequest(s, first.Checksum, "60")
	conn := dialWait(t, s, raw+raw)
	resp, _ := readAnswer(t, conn)
	if resp.StatusCode != http.StatusNotModified {
		t.Errorf("pipelined wait = %d, want 304 at once", resp.StatusCode)
	}
	awaitWaiters(t, s, 0)
}

// logLines collects the JSON log lines a server writes.
type logLines struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logLines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

// requests returns the access log lines of route.
func (l *logLines) requests(t *testing.T, route string) []map[string]any {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []map[string]any
	for line := range strings.SplitSeq(strings.TrimSpace(l.buf.String()), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		if rec["msg"] == "request" && rec["route"] == route {
			out = append(out, rec)
		}
	}
	return out
}

// TestParkedWaitLogged writes one access log line for a parked wait, when
// it ends, with its status and who waited.
func TestParkedWaitLogged(t *testing.T) {
	logs := &logLines{}
	s := servertest.Start(t, servertest.WithLogger(slog.New(slog.NewJSONHandler(logs, nil))))
	first := put(t, s, repo, map[string]string{"a.md": "a"})
	before := len(logs.requests(t, "team_memory"))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r := doCtx(t, ctx, s.URL, req{query: waitQuery(repo, 1), token: s.Token,
		headers: map[string]string{"If-None-Match": api.ETag(first.Checksum)}})
	if r.status != http.StatusNotModified {
		t.Fatalf("wait = %d, want 304", r.status)
	}
	awaitWaiters(t, s, 0)
	recs := logs.requests(t, "team_memory")
	if len(recs) != before+1 {
		t.Fatalf("access log has %d team_memory lines after the wait, want %d", len(recs), before+1)
	}
	rec := recs[len(recs)-1]
	if rec["status"] != float64(http.StatusNotModified) || rec["repo"] != repo || rec["subject"] != "servertest" || rec["method"] != "GET" {
		t.Errorf("the wait's access log line = %v, want GET %s by servertest, status 304", rec, repo)
	}
}

// TestParkedWaitLogsBodyBytes: a parked wait's access log line counts the
// bytes of the body it sent, as every other request's line does, not the
// status line and headers written with it on the taken-over connection.
func TestParkedWaitLogsBodyBytes(t *testing.T) {
	logs := &logLines{}
	s := servertest.Start(t, servertest.WithLogger(slog.New(slog.NewJSONHandler(logs, nil))))
	first := put(t, s, repo, map[string]string{"a.md": "a"})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	woken := make(chan reply, 1)
	go func() {
		woken <- doCtx(t, ctx, s.URL, req{query: waitQuery(repo, 20), token: s.Token,
			headers: map[string]string{"If-None-Match": api.ETag(first.Checksum)}})
	}()
	awaitParked(t, s.URL, "1")
	put(t, s, repo, map[string]string{"b.md": "b"})
	r := <-woken
	if r.status != http.StatusOK {
		t.Fatalf("woken wait = %d %s, want 200", r.status, r.body)
	}
	awaitWaiters(t, s, 0)
	var rec map[string]any
	for _, l := range logs.requests(t, "team_memory") {
		if l["method"] == http.MethodGet {
			rec = l // the last GET, the wait's
		}
	}
	if rec["status"] != float64(http.StatusOK) || rec["bytes"] != float64(len(r.body)) {
		t.Errorf("the woken wait's access log line = %v, want status 200 and bytes %d, the body's length", rec, len(r.body))
	}
}
