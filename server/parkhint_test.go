package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/servertest"
	"github.com/teammemd/teammemd/server/store"
)

// hintBytes is a write hint as the server sends it (PROTOCOL.md section
// 21).
const hintBytes = "HTTP/1.1 103 Early Hints\r\nTeammemd-Hint: write\r\n\r\n"

// hintedWait is a raw change wait of wait seconds from inm on repo, in
// proto ("HTTP/1.1" or "HTTP/1.0"), with the extra header lines extra.
func hintedWait(s *servertest.Server, proto, inm, wait string, extra ...string) string {
	raw := "GET " + api.Path + "?" + memQuery(repo, "view", "hashes", "wait", wait) + " " + proto + "\r\nHost: " + s.Addr +
		"\r\nAuthorization: Bearer " + s.Token + "\r\nIf-None-Match: " + api.ETag(inm) + "\r\n"
	for _, h := range extra {
		raw += h + "\r\n"
	}
	return raw + "\r\n"
}

// metric reads the value of the metric name from the server at base, ""
// when it is not there.
func metric(t *testing.T, base, name string) string {
	t.Helper()
	for line := range strings.Lines(string(do(t, base, req{path: "/metrics"}).body)) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), name+" "); ok {
			return v
		}
	}
	return ""
}

// awaitParked waits until n change waits are parked on the server at base.
func awaitParked(t *testing.T, base string, n string) {
	t.Helper()
	awaitMetric(t, base, "teammemd_change_waits_parked", n)
}

// awaitMetric waits until the server at base shows the metric name at n.
func awaitMetric(t *testing.T, base, name, n string) {
	t.Helper()
	for range 1000 {
		if metric(t, base, name) == n {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("%s never reached %s (it is at %q)", name, n, metric(t, base, name))
}

// transcript reads what the server sends on conn until it closes it.
func transcript(t *testing.T, conn net.Conn) string {
	t.Helper()
	b, err := io.ReadAll(conn)
	if err != nil {
		t.Fatalf("read the wait's connection: %v", err)
	}
	return string(b)
}

// finalAnswer parses the response that follows hints hints in raw.
func finalAnswer(t *testing.T, raw string, hints int) *http.Response {
	t.Helper()
	rest, ok := strings.CutPrefix(raw, strings.Repeat(hintBytes, hints))
	if !ok || strings.HasPrefix(rest, "HTTP/1.1 103") {
		t.Fatalf("the wait's connection = %q, want %d write hints and then the answer", raw, hints)
	}
	resp, err := http.ReadResponse(bufio.NewReader(strings.NewReader(rest)), nil)
	if err != nil {
		t.Fatalf("read the answer after the hints in %q: %v", raw, err)
	}
	return resp
}

// A write by another client reaches a parked wait that asked for hints
// as a 103 before the answer, which follows as without it. The hint goes
// out as the write arrives, before its scan: the test holds the write in
// its scan until the hint is on the wait's connection, as the scan and the
// commit of a real write take far longer than the hint's goroutine does.
func TestWriteHintComesBeforeTheAnswer(t *testing.T) {
	hold := heldScanner{value: "held", release: make(chan struct{})}
	s := servertest.Start(t, servertest.WithScanner(hold))
	first := put(t, s, repo, map[string]string{"a.md": "a"})
	conn := dialWait(t, s, hintedWait(s, "HTTP/1.1", first.Checksum, "30", api.HeaderHint+": write", api.HeaderInstance+": daemon-b"))
	awaitParked(t, s.URL, "1")
	answered := make(chan error, 1)
	var second api.PutResponse
	go func() { answered <- putRaw(s, putBody(t, map[string]string{"b.md": "held"}), &second) }()
	hint := make([]byte, len(hintBytes))
	_, err := io.ReadFull(conn, hint)
	close(hold.release)
	if err != nil || string(hint) != hintBytes {
		t.Fatalf("the wait's connection starts %q (%v), want the write hint %q", hint, err, hintBytes)
	}
	if err := <-answered; err != nil {
		t.Fatal(err)
	}
	resp := finalAnswer(t, transcript(t, conn), 0)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("ETag") != api.ETag(second.Checksum) {
		t.Errorf("answer after the hint = %d ETag %q, want 200 at %q", resp.StatusCode, resp.Header.Get("ETag"), second.Checksum)
	}
	if n := metric(t, s.URL, "teammemd_write_hints_total"); n != "1" {
		t.Errorf("teammemd_write_hints_total = %q, want 1", n)
	}
	awaitParked(t, s.URL, "0")
}

// heldScanner finds no secret; it holds a write that has value among its
// values in its scan until release is closed.
type heldScanner struct {
	value   string
	release chan struct{}
}

func (h heldScanner) ScanEntries(ctx context.Context, entries map[string]string) (map[string][]string, error) {
	for _, v := range entries {
		if v != h.value {
			continue
		}
		select {
		case <-h.release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return nil, nil
}

func (heldScanner) ScanKeys(context.Context, []string) (map[string][]string, error) { return nil, nil }

// putRaw sends body as a PUT to repo on s, off the test's goroutine, and
// decodes a 200's answer into out.
func putRaw(s *servertest.Server, body string, out *api.PutResponse) error {
	r, err := http.NewRequest(http.MethodPut, s.URL+api.Path+"?"+memQuery(repo), strings.NewReader(body))
	if err != nil {
		return err
	}
	r.Header.Set("Authorization", "Bearer "+s.Token)
	r.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		return fmt.Errorf("PUT: %w", err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		return fmt.Errorf("PUT = %d %s (%v), want 200", resp.StatusCode, data, err)
	}
	return json.Unmarshal(data, out)
}

// The hint goes out as the write arrives, before its scan: a write
// refused for a secret has hinted, and the wait goes on to its end.
func TestWriteHintForARefusedWrite(t *testing.T) {
	s := servertest.Start(t, servertest.WithScanner(servertest.MarkerScanner(secretMarker)))
	first := put(t, s, repo, map[string]string{"a.md": "a"})
	conn := dialWait(t, s, hintedWait(s, "HTTP/1.1", first.Checksum, "2", api.HeaderHint+": write"))
	awaitParked(t, s.URL, "1")
	r := do(t, s.URL, req{method: http.MethodPut, repo: repo, token: s.Token, body: putBody(t, map[string]string{"k.md": secretMarker})})
	if r.status != http.StatusUnprocessableEntity {
		t.Fatalf("PUT of a secret = %d %s, want 422", r.status, r.body)
	}
	resp := finalAnswer(t, transcript(t, conn), 1)
	if resp.StatusCode != http.StatusNotModified {
		t.Errorf("answer after the refused write's hint = %d, want 304 when the wait ends", resp.StatusCode)
	}
}

// One wait gets at most api.MaxWriteHints hints, which Go's client takes
// (it refuses a sixth informational response).
func TestWriteHintsBounded(t *testing.T) {
	s := servertest.Start(t, servertest.WithScanner(servertest.MarkerScanner(secretMarker)))
	first := put(t, s, repo, map[string]string{"a.md": "a"})
	conn := dialWait(t, s, hintedWait(s, "HTTP/1.1", first.Checksum, "30", api.HeaderHint+": write"))
	awaitParked(t, s.URL, "1")
	secret := putBody(t, map[string]string{"k.md": secretMarker})
	for range api.MaxWriteHints + 2 {
		if r := do(t, s.URL, req{method: http.MethodPut, repo: repo, token: s.Token, body: secret}); r.status != http.StatusUnprocessableEntity {
			t.Fatalf("PUT of a secret = %d, want 422", r.status)
		}
	}
	// The hints go out on a goroutine of their own: the last write's
	// answer may come before them.
	for range 1000 {
		if metric(t, s.URL, "teammemd_write_hints_total") == "4" {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	put(t, s, repo, map[string]string{"b.md": "b"})
	raw := transcript(t, conn)
	resp := finalAnswer(t, raw, api.MaxWriteHints)
	if resp.StatusCode != http.StatusOK {
		t.Errorf("answer after %d hints = %d, want 200", api.MaxWriteHints, resp.StatusCode)
	}
	got, err := http.ReadResponse(bufio.NewReader(strings.NewReader(raw)), nil)
	if err != nil || got.StatusCode != http.StatusEarlyHints || got.Header.Get(api.HeaderHint) != api.HintWrite {
		t.Errorf("first response = %v, %v; want a 103 with %s: write", got, err, api.HeaderHint)
	}
}

// No hint reaches a wait that did not ask, an HTTP/1.0 wait, the writer's
// own instance's wait, or a wait on a repo under review (the write is a
// proposal): each ends with its answer alone.
func TestNoWriteHint(t *testing.T) {
	hint := api.HeaderHint + ": write"
	for name, c := range map[string]struct {
		proto    string
		extra    []string
		instance string // the writer's
		reviewed bool
	}{
		"not asked":      {proto: "HTTP/1.1"},
		"HTTP/1.0":       {proto: "HTTP/1.0", extra: []string{hint}},
		"own instance":   {proto: "HTTP/1.1", extra: []string{hint, api.HeaderInstance + ": daemon-a"}, instance: "daemon-a"},
		"another client": {proto: "HTTP/1.1", extra: []string{hint, api.HeaderInstance + ": daemon-b"}, instance: "daemon-a", reviewed: true},
	} {
		t.Run(name, func(t *testing.T) {
			var s *servertest.Server
			token := ""
			if c.reviewed {
				rs := startReviewed(t)
				s, token = rs.Server, rs.alice
			} else {
				s = servertest.Start(t)
				token = s.Token
			}
			first := api.RepoChecksum(nil, nil)
			if !c.reviewed {
				first = put(t, s, repo, map[string]string{"a.md": "a"}).Checksum
			}
			conn := dialWait(t, s, hintedWait(s, c.proto, first, "1", c.extra...))
			awaitParked(t, s.URL, "1")
			h := map[string]string{}
			if c.instance != "" {
				h[api.HeaderInstance] = c.instance
			}
			if r := do(t, s.URL, req{method: http.MethodPut, repo: repo, token: token, body: putBody(t, map[string]string{"b.md": "b"}), headers: h}); r.status != http.StatusOK {
				t.Fatalf("PUT = %d %s", r.status, r.body)
			}
			raw := transcript(t, conn)
			if strings.Contains(raw, " 103 ") {
				t.Errorf("the wait's connection = %q, want no hint", raw)
			}
			if n := metric(t, s.URL, "teammemd_write_hints_total"); n != "0" {
				t.Errorf("teammemd_write_hints_total = %q, want 0", n)
			}
		})
	}
}

// A malformed hint header is a 400, as the instance header's is.
func TestWriteHintHeaderMalformed(t *testing.T) {
	s := servertest.Start(t)
	first := put(t, s, repo, map[string]string{"a.md": "a"})
	for _, extra := range [][]string{{api.HeaderHint + ": yes"}, {api.HeaderHint + ": write", api.HeaderHint + ": write"}} {
		conn := dialWait(t, s, hintedWait(s, "HTTP/1.1", first.Checksum, "30", extra...))
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("read the answer: %v", err)
		}
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatalf("read the answer's body: %v", err)
		}
		if resp.StatusCode != http.StatusBadRequest || !bytes.Contains(body, []byte(api.HeaderHint)) {
			t.Errorf("wait with %q = %d %s, want 400 naming %s", extra, resp.StatusCode, body, api.HeaderHint)
		}
	}
}

// A hash probe with the hint header announces a write to come: the
// repo's hinted waits hear of it at once, when the prober may write there;
// the probe is answered as any probe.
func TestProbeAnnouncesAWrite(t *testing.T) {
	s := servertest.Start(t)
	first := put(t, s, repo, map[string]string{"a.md": "a"})
	reader := s.CreateToken(t, "reader", store.Grant{Pattern: "**", Level: store.LevelRead})
	conn := dialWait(t, s, hintedWait(s, "HTTP/1.1", first.Checksum, "2", api.HeaderHint+": write"))
	awaitParked(t, s.URL, "1")
	probe := func(token string, hint string) reply {
		return do(t, s.URL, req{repo: repo, token: token, query: memQuery(repo, "view", "hashes"),
			headers: map[string]string{"If-None-Match": api.ETag(first.Checksum), api.HeaderHint: hint}})
	}
	if r := probe(reader, api.HintWrite); r.status != http.StatusNotModified {
		t.Fatalf("a reader's announcing probe = %d %s, want 304", r.status, r.body)
	}
	if r := probe(s.Token, "soon"); r.status != http.StatusBadRequest {
		t.Fatalf("a probe with a malformed hint header = %d %s, want 400", r.status, r.body)
	}
	if r := probe(s.Token, api.HintWrite); r.status != http.StatusNotModified {
		t.Fatalf("a writer's announcing probe = %d %s, want 304", r.status, r.body)
	}
	resp := finalAnswer(t, transcript(t, conn), 1)
	if resp.StatusCode != http.StatusNotModified {
		t.Errorf("answer after the announced write's hint = %d, want 304 when the wait ends", resp.StatusCode)
	}
}

// TestProbeWarmsTheWriter: a probe that announces a write has the SQLite
// store warm its writer up, when its sender may write there; a reader's
// does not.
func TestProbeWarmsTheWriter(t *testing.T) {
	s := servertest.Start(t)
	first := put(t, s, repo, map[string]string{"a.md": "a", "b.md": "b"})
	reader := s.CreateToken(t, "reader", store.Grant{Pattern: "**", Level: store.LevelRead})
	probe := func(token string) {
		r := do(t, s.URL, req{repo: repo, token: token, query: memQuery(repo, "view", "hashes"),
			headers: map[string]string{"If-None-Match": api.ETag(first.Checksum), api.HeaderHint: api.HintWrite}})
		if r.status != http.StatusNotModified && r.status != http.StatusOK {
			t.Fatalf("announcing probe = %d %s, want 304 or 200", r.status, r.body)
		}
	}
	probe(reader)
	put(t, s, repo, map[string]string{"c.md": "c"}) // the writer is free once more: a warm-up would have run
	if n := metric(t, s.URL, "teammemd_write_warmups_total"); n != "0" {
		t.Fatalf("write warm-ups after a reader's probe = %s, want 0", n)
	}
	probe(s.Token)
	awaitMetric(t, s.URL, "teammemd_write_warmups_total", "1")
	got := put(t, s, repo, map[string]string{"a.md": "a2"})
	snap := do(t, s.URL, req{repo: repo, token: s.Token})
	if snap.status != http.StatusOK || !strings.Contains(string(snap.body), got.Checksum) {
		t.Errorf("after the warm-up and a write: GET = %d %s, want the write's checksum %s", snap.status, snap.body, got.Checksum)
	}
}
