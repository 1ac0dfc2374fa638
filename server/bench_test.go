package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/teammemd/teammemd/scan"
	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/servertest"
)

// benchClient keeps enough connections open for every concurrent client.
func benchClient() *http.Client {
	return &http.Client{Transport: &http.Transport{MaxIdleConns: 256, MaxIdleConnsPerHost: 256}}
}

// send performs one request and drains the answer.
func send(b *testing.B, c *http.Client, method, url, token, body string, headers ...string) (int, []byte) {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	r, err := http.NewRequest(method, url, rd)
	if err != nil {
		b.Error(err)
		return 0, nil
	}
	r.Header.Set("Authorization", "Bearer "+token)
	for i := 0; i+1 < len(headers); i += 2 {
		r.Header.Set(headers[i], headers[i+1])
	}
	resp, err := c.Do(r)
	if err != nil {
		b.Error(err)
		return 0, nil
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, out
}

// reportLatency reports p50 and p99 of lat in milliseconds.
func reportLatency(b *testing.B, lat []time.Duration) {
	if len(lat) == 0 {
		return
	}
	slices.Sort(lat)
	pct := func(p float64) float64 {
		return float64(lat[int(p*float64(len(lat)-1))].Microseconds()) / 1000
	}
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
}

// BenchmarkPut16Clients measures durable PUT throughput: 16 clients each
// writing 4 KB single-entry PUTs to one repo, every PUT a real change.
func BenchmarkPut16Clients(b *testing.B) {
	s := servertest.Start(b)
	benchPut16(b, s.Token, strings.Repeat("x", 4096-40), s.URL)
}

// BenchmarkPut16ClientsScanned is BenchmarkPut16Clients with the server's
// secret scan on, as "teammemd serve" runs by default, and values that read
// like real notes, full of the words the scanning rules look for.
func BenchmarkPut16ClientsScanned(b *testing.B) {
	sc, err := scan.New(scan.Config{})
	if err != nil {
		b.Fatal(err)
	}
	s := servertest.Start(b, servertest.WithScanner(sc))
	benchPut16(b, s.Token, benchNote(4096-40), s.URL)
}

// benchNote returns about size bytes of note text that mentions keys,
// tokens and passwords without holding any.
func benchNote(size int) string {
	const para = "## Deploy notes\n\nThe API key for staging lives in the vault; ask for a token " +
		"before running `make deploy`. Never paste a password or an access key here: the " +
		"secret scanner holds such notes back. AWS credentials come from SSO, and the GitHub " +
		"token for CI is rotated monthly (see ops/secrets.md). Use `export API_TOKEN=$(vault read -field=token)`.\n\n"
	return strings.Repeat(para, size/len(para)+1)[:size]
}

// benchPut16 runs the 16 clients, each on the server at one of bases in
// turn, with token.
func benchPut16(b *testing.B, token, value string, bases ...string) {
	const clients = 16
	c := benchClient()
	var mu sync.Mutex
	var lat []time.Duration
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	for w := range clients {
		n := b.N / clients
		if w < b.N%clients {
			n++
		}
		url := bases[w%len(bases)] + api.Path + "?" + memQuery(repo)
		wg.Go(func() {
			mine := make([]time.Duration, 0, n)
			for i := range n {
				body := fmt.Sprintf(`{"entries":{"c%d/k%d.md":%s}}`, w, i%50, jsonString(fmt.Sprintf("%s %08d", value, i)))
				t0 := time.Now()
				if code, out := send(b, c, http.MethodPut, url, token, body); code != http.StatusOK {
					b.Errorf("PUT = %d %s", code, out)
					return
				}
				mine = append(mine, time.Since(t0))
			}
			mu.Lock()
			lat = append(lat, mine...)
			mu.Unlock()
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "ops/s")
	reportLatency(b, lat)
}

// BenchmarkHashes2000 measures a hash probe of a repo of 2,000 entries.
func BenchmarkHashes2000(b *testing.B) {
	s := servertest.Start(b)
	c := benchClient()
	var body bytes.Buffer
	body.WriteString(`{"entries":{`)
	for i := range api.DefaultMaxEntries {
		if i > 0 {
			body.WriteByte(',')
		}
		fmt.Fprintf(&body, `"dir%02d/note-%04d.md":"note %d"`, i%20, i, i)
	}
	body.WriteString(`}}`)
	url := s.URL + api.Path + "?" + memQuery(repo)
	if code, out := send(b, c, http.MethodPut, url, s.Token, body.String()); code != http.StatusOK {
		b.Fatalf("seed PUT = %d %s", code, out)
	}
	url += "&view=hashes"
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		t0 := time.Now()
		if code, _ := send(b, c, http.MethodGet, url, s.Token, ""); code != http.StatusOK {
			b.Fatalf("GET hashes = %d", code)
		}
		lat = append(lat, time.Since(t0))
	}
	b.StopTimer()
	reportLatency(b, lat)
}

// BenchmarkWake100 measures how long after a PUT starts each of 100
// clients held in a change wait has its answer.
func BenchmarkWake100(b *testing.B) {
	const waiting = 100
	s := servertest.Start(b)
	c := benchClient()
	base := s.URL + api.Path + "?" + memQuery(repo)
	_, out := send(b, c, http.MethodPut, base, s.Token, `{"entries":{"a.md":"0"}}`)
	current := checksumFrom(b, out)
	var lat []time.Duration
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		arrived := make(chan time.Time, waiting)
		var wg sync.WaitGroup
		for range waiting {
			wg.Go(func() {
				code, _ := send(b, c, http.MethodGet, base+"&view=hashes&wait=30", s.Token, "", "If-None-Match", api.ETag(current))
				if code != http.StatusOK {
					b.Errorf("wait = %d, want 200", code)
				}
				arrived <- time.Now()
			})
		}
		awaitBenchWaiters(b, c, s.URL, waiting)
		b.StartTimer()
		t0 := time.Now()
		_, out := send(b, c, http.MethodPut, base, s.Token, fmt.Sprintf(`{"entries":{"a.md":"%d"}}`, i+1))
		wg.Wait()
		close(arrived)
		for at := range arrived {
			lat = append(lat, at.Sub(t0))
		}
		current = checksumFrom(b, out)
	}
	b.StopTimer()
	reportLatency(b, lat)
}

func checksumFrom(b *testing.B, body []byte) string {
	i := bytes.Index(body, []byte(`"checksum":"`))
	if i < 0 {
		b.Fatalf("no checksum in %s", body)
	}
	rest := body[i+len(`"checksum":"`):]
	return string(rest[:bytes.IndexByte(rest, '"')])
}

// awaitBenchWaiters polls the server's /metrics until n clients wait.
func awaitBenchWaiters(b *testing.B, c *http.Client, base string, n int) {
	want := fmt.Sprintf("teammemd_change_waiters %d\n", n)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for ctx.Err() == nil {
		_, out := send(b, c, http.MethodGet, base+"/metrics", "", "")
		if bytes.Contains(out, []byte(want)) {
			return
		}
		time.Sleep(2 * time.Millisecond)
	}
	b.Fatalf("waiters never reached %d", n)
}

// jsonString returns s as a JSON string literal.
func jsonString(s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err) // a string always marshals
	}
	return string(b)
}

// BenchmarkPutAmplification measures what a PUT costs the server when it
// is refused for holding more entries than a repo may: one body of the
// largest size the server takes (2 MiB) packed with empty entries, through
// the real handler and store, with the secret scan off and on. Besides
// time and allocations per request it reports the process's CPU time per
// request (server and the in-process client) and the peak of the resident
// set above where it stood before the first request.
func BenchmarkPutAmplification(b *testing.B) {
	body, n := packedBody(api.DefaultMaxBodyBytes)
	sc, err := scan.New(scan.Config{})
	if err != nil {
		b.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		opts []servertest.Option
	}{
		{"scan=off", nil},
		{"scan=on", []servertest.Option{servertest.WithScanner(sc)}},
	} {
		b.Run(tt.name, func(b *testing.B) {
			s := servertest.Start(b, tt.opts...)
			benchRefusedPut(b, s, body, n)
		})
	}
}

// packedBody returns a PUT body of as many empty entries as fit in size
// bytes, and how many that is.
func packedBody(size int) ([]byte, int) {
	var b bytes.Buffer
	b.WriteString(`{"entries":{`)
	n := 0
	for ; ; n++ {
		entry := fmt.Sprintf(`,"n%06d":""`, n)
		if n == 0 {
			entry = entry[1:]
		}
		if b.Len()+len(entry)+len(`}}`) > size {
			break
		}
		b.WriteString(entry)
	}
	b.WriteString(`}}`)
	return b.Bytes(), n
}

func benchRefusedPut(b *testing.B, s *servertest.Server, body []byte, entries int) {
	c := benchClient()
	url := s.URL + api.Path + "?" + memQuery(repo)
	runtime.GC()
	rssOK := resetPeakMemory()
	rssBefore, ok := memoryStatus("VmRSS")
	rssOK = rssOK && ok
	cpuBefore, cpuOK := processCPU()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		r, err := http.NewRequest(http.MethodPut, url, bytes.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		r.Header.Set("Authorization", "Bearer "+s.Token)
		resp, err := c.Do(r)
		if err != nil {
			b.Fatal(err)
		}
		out, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusRequestEntityTooLarge || !bytes.Contains(out, []byte(api.CodeTooManyEntries)) {
			b.Fatalf("PUT of %d entries = %d %s, want 413 %s", entries, resp.StatusCode, out, api.CodeTooManyEntries)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(entries), "entries")
	if cpuAfter, ok := processCPU(); ok && cpuOK {
		b.ReportMetric(float64((cpuAfter-cpuBefore).Microseconds())/1000/float64(b.N), "cpu-ms/op")
	}
	if peak, ok := memoryStatus("VmHWM"); ok && rssOK {
		b.ReportMetric(float64(max(peak-rssBefore, 0))/(1<<20), "rss-growth-MB")
	}
}
