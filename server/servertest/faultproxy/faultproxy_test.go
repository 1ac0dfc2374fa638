package faultproxy

import (
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// backend serves a fixed body on 127.0.0.1 and counts the requests it saw.
func backend(t *testing.T) (string, *atomic.Int64) {
	t.Helper()
	var hits atomic.Int64
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{ReadHeaderTimeout: 5 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		io.WriteString(w, strings.Repeat("answer ", 100))
	})}
	done := make(chan struct{})
	go func() { defer close(done); _ = srv.Serve(ln) }()
	t.Cleanup(func() { srv.Close(); <-done })
	return "http://" + ln.Addr().String(), &hits
}

// outcome is what a client saw of one request.
type outcome struct {
	status     int // 0 when the request or its body failed
	retryAfter string
	reached    bool // the backend saw the request
}

func TestFaults(t *testing.T) {
	target, hits := backend(t)
	p, err := Start(target)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	tests := []struct {
		fault Fault
		want  outcome
	}{
		{ResetBefore, outcome{0, "", false}},
		{ResetAfter, outcome{0, "", true}},
		{Status500, outcome{500, "", false}},
		{Status502After, outcome{502, "", true}},
		{Status503, outcome{503, "", false}},
		{RetryAfter429, outcome{429, "1", false}},
		{Bare429, outcome{429, "", false}},
		{Latency, outcome{200, "", true}},
		{CutBody, outcome{0, "", true}},
	}
	p.SetFaults(1)
	for i, tt := range tests {
		if all := Faults(); all[i] != tt.fault {
			t.Fatalf("Faults()[%d] = %v, want %v", i, all[i], tt.fault)
		}
		before := hits.Load()
		got := get(p.URL)
		got.reached = hits.Load() > before
		if got != tt.want {
			t.Errorf("GET with fault %v = %+v, want %+v", tt.fault, got, tt.want)
		}
	}
	recs := p.Records()
	if len(recs) != len(tests) {
		t.Fatalf("Records() holds %d requests, want %d", len(recs), len(tests))
	}
	for i, tt := range tests {
		if recs[i].Fault != tt.fault {
			t.Errorf("Records()[%d].Fault = %v, want %v", i, recs[i].Fault, tt.fault)
		}
	}
}

// TestHangEndsOnHeal shows a hung request held until Heal, then reset, and
// requests after Heal forwarded untouched.
func TestHangEndsOnHeal(t *testing.T) {
	target, hits := backend(t)
	p, err := Start(target)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	p.SetFaults(1)
	for range len(Faults()) - 1 {
		get(p.URL) // every fault before Hang
	}
	before := hits.Load()
	res := make(chan outcome, 1)
	go func() { res <- get(p.URL) }()
	for len(p.Records()) < len(Faults()) {
		time.Sleep(time.Millisecond) // until the proxy holds the hung request
	}
	select {
	case got := <-res:
		t.Fatalf("hung GET answered %+v before Heal", got)
	default:
	}
	p.Heal()
	if got := <-res; got.status != 0 || hits.Load() != before {
		t.Errorf("hung GET after Heal = %+v, backend hits +%d, want a failed request that never reached it", got, hits.Load()-before)
	}
	if got := get(p.URL); got.status != http.StatusOK {
		t.Errorf("GET after Heal = %+v, want 200", got)
	}
}

func TestStartRefusesRemoteTarget(t *testing.T) {
	for _, target := range []string{"http://192.0.2.1:80", "https://127.0.0.1:1", "not a url"} {
		if _, err := Start(target); err == nil {
			t.Errorf("Start(%q) = nil error, want a refusal", target)
		}
	}
}

// get sends one GET on a connection of its own and reads the whole body.
func get(url string) outcome {
	c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 30 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		return outcome{}
	}
	defer resp.Body.Close()
	if _, err := io.ReadAll(resp.Body); err != nil {
		return outcome{}
	}
	return outcome{status: resp.StatusCode, retryAfter: resp.Header.Get("Retry-After")}
}
