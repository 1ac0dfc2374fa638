package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/teammemd/teammemd/server"
	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/servertest"
)

// benchNotes is the size of the benchmarks' repo: the most entries a repo
// holds by default.
const benchNotes = 2000

// benchWords are the words the benchmark's notes are made of.
var benchWords = strings.Fields("postgres migration deploy cache index replica backup schema vacuum latency " +
	"queue worker retry timeout token review release rollback feature flag metrics alert oncall runbook " +
	"kubernetes helm terraform bucket lambda gateway proxy tls certificate rotate secretless config")

// benchServer is a real server with /mcp on loopback, its repo acme/app
// holding benchNotes notes of about 400 bytes, and a session on /mcp.
func benchServer(b *testing.B) (*servertest.Server, *mcp.ClientSession) {
	b.Helper()
	h, err := serveMCP(servertest.Config(), slog.New(slog.DiscardHandler))
	if err != nil {
		b.Fatal(err)
	}
	s := servertest.Start(b, servertest.WithOptions(func(o *server.Options) { o.MCP = h }))
	entries := map[string]string{}
	for i := range benchNotes {
		var text strings.Builder
		fmt.Fprintf(&text, "---\nname: note %d\ndescription: how the team handles %s\n---\n", i, benchWords[i%len(benchWords)])
		for j := range 50 {
			text.WriteString(benchWords[(i*7+j*j)%len(benchWords)])
			text.WriteByte(" \n"[min(1, (j+1)%10)^1])
		}
		entries[fmt.Sprintf("notes/%02d/n%04d.md", i%40, i)] = text.String()
	}
	body, err := json.Marshal(api.PutRequest{Entries: entries})
	if err != nil {
		b.Fatal(err)
	}
	if status, out := benchDo(b, s, http.MethodPut, body); status != http.StatusOK {
		b.Fatalf("PUT = %d %s", status, out)
	}
	tr := &mcp.StreamableClientTransport{Endpoint: s.URL + "/mcp", HTTPClient: &http.Client{Transport: bearer{s.Token}}, DisableStandaloneSSE: true}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench"}, nil).Connect(context.Background(), tr, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cs.Close() })
	return s, cs
}

// benchDo sends one API request on acme/app.
func benchDo(b *testing.B, s *servertest.Server, method string, body []byte) (int, []byte) {
	r, err := http.NewRequest(method, s.URL+api.Path+"?repo=acme%2Fapp", bytes.NewReader(body))
	if err != nil {
		b.Fatal(err)
	}
	r.Header.Set("Authorization", "Bearer "+s.Token)
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, out
}

// benchCall calls a tool and fails the benchmark on an error.
func benchCall(b *testing.B, cs *mcp.ClientSession, name string, args map[string]any) {
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil || res.IsError {
		b.Fatalf("%s = %+v, %v", name, res, err)
	}
}

// routeTime reads the server's own account of a route's requests: the
// seconds spent in them and their count.
func routeTime(b *testing.B, s *servertest.Server, route string) (float64, float64) {
	resp, err := http.Get(s.URL + "/metrics")
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	text, err := io.ReadAll(resp.Body)
	if err != nil {
		b.Fatal(err)
	}
	var sum, count float64
	for _, line := range strings.Split(string(text), "\n") {
		name, value, _ := strings.Cut(line, " ")
		switch name {
		case `teammemd_http_request_duration_seconds_sum{route="` + route + `"}`:
			fmt.Sscan(value, &sum)
		case `teammemd_http_request_duration_seconds_count{route="` + route + `"}`:
			fmt.Sscan(value, &count)
		}
	}
	return sum, count
}

// serverTime runs op b.N times and reports, beside the client's ns/op,
// the mean time the server spent in each request of route.
func serverTime(b *testing.B, s *servertest.Server, route string, op func()) {
	sum0, n0 := routeTime(b, s, route)
	for b.Loop() {
		op()
	}
	b.StopTimer()
	sum1, n1 := routeTime(b, s, route)
	b.ReportMetric((sum1-sum0)/(n1-n0)*1000, "server-ms/op")
}

// BenchmarkServeMCP measures the tools of /mcp against a real server over
// loopback, each op one HTTP request from the Go SDK's client: memory_read
// of one note, memory_search of two words in benchNotes notes, and the
// API's own peer, a full GET of the repo (the one way the API reads a
// note).
func BenchmarkServeMCP(b *testing.B) {
	s, cs := benchServer(b)
	read := map[string]any{"repo": "acme/app", "key": "notes/07/n0007.md"}
	benchCall(b, cs, "memory_read", read) // the repo's index is built once, here
	b.Run("memory_read", func(b *testing.B) {
		serverTime(b, s, "mcp", func() { benchCall(b, cs, "memory_read", read) })
	})
	b.Run("memory_search", func(b *testing.B) {
		lat := make([]time.Duration, 0, 1024)
		i := 0
		for b.Loop() {
			q := benchWords[i%len(benchWords)] + " " + benchWords[(i*3+1)%len(benchWords)]
			i++
			start := time.Now()
			benchCall(b, cs, "memory_search", map[string]any{"repo": "acme/app", "query": q})
			lat = append(lat, time.Since(start))
		}
		slices.Sort(lat)
		b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
	})
	b.Run("api_get", func(b *testing.B) {
		serverTime(b, s, "team_memory", func() {
			if status, _ := benchDo(b, s, http.MethodGet, nil); status != http.StatusOK {
				b.Fatalf("GET = %d", status)
			}
		})
	})
}
