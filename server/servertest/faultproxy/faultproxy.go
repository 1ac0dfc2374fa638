// Package faultproxy is an HTTP proxy for tests that stands between teammemd
// clients and a server, both on loopback, and injects what a bad network or
// a struggling server does: connections reset before or after the server
// saw the request, 500, 502 and 503 answers, 429 with and without
// Retry-After, added latency, response bodies cut mid-way and connections
// that hang until the faults stop. It counts every request and every fault
// it injected, with their times, so a test can check that clients back off
// instead of retrying in a tight loop.
package faultproxy

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/teammemd/teammemd/internal/loopback"
	"github.com/teammemd/teammemd/internal/pause"
)

// Fault is one kind of injected failure.
type Fault int

// The faults, in the order the proxy cycles through them.
const (
	// None forwards the request and its answer untouched.
	None Fault = iota
	// ResetBefore resets the connection before the request reaches the
	// server.
	ResetBefore
	// ResetAfter lets the server handle the request, then resets the
	// connection instead of answering.
	ResetAfter
	// Status500 answers 500 with the protocol's error envelope; the server
	// never sees the request.
	Status500
	// Status502After lets the server handle the request, then answers 502
	// as a gateway would, with a plain text body.
	Status502After
	// Status503 answers 503 with a plain text body.
	Status503
	// RetryAfter429 answers 429 rate_limited with "Retry-After: 1".
	RetryAfter429
	// Bare429 answers 429 rate_limited without Retry-After.
	Bare429
	// Latency holds the request for up to MaxLatency, then forwards it.
	Latency
	// CutBody forwards the request and sends the first half of the answer's
	// body, with the full Content-Length, then closes the connection.
	CutBody
	// Hang holds the connection without an answer until Heal, the client
	// gives up, or MaxHang passes, then resets it.
	Hang
	numFaults
)

// Faults lists every fault kind except None.
func Faults() []Fault {
	out := make([]Fault, 0, numFaults-1)
	for f := None + 1; f < numFaults; f++ {
		out = append(out, f)
	}
	return out
}

func (f Fault) String() string {
	names := [...]string{"none", "reset before", "reset after", "500", "502 after", "503",
		"429 Retry-After", "429 bare", "latency", "cut body", "hang"}
	if f < 0 || f >= numFaults {
		return fmt.Sprintf("fault(%d)", int(f))
	}
	return names[f]
}

// Limits of the slow faults.
const (
	MaxLatency = 800 * time.Millisecond
	MaxHang    = 2 * time.Minute
)

// Proxy forwards to one server and injects faults while they are on.
type Proxy struct {
	// URL is the proxy's base URL, http://127.0.0.1:<port>.
	URL string

	target *url.URL
	client *http.Client
	srv    *http.Server
	done   chan struct{}

	mu      sync.Mutex
	rate    float64 // share of requests that get a fault
	next    int     // index into Faults() of the next fault
	rng     *rand.Rand
	healed  chan struct{} // closed by Heal: hung requests end
	records []Record
}

// Record is one request the proxy took.
type Record struct {
	Time   time.Time
	Method string
	Fault  Fault
}

// Start listens on a new 127.0.0.1 port and forwards to target, an
// http:// base URL on loopback. Faults are off until SetFaults.
func Start(target string) (*Proxy, error) {
	u, err := url.Parse(target)
	if err != nil || u.Scheme != "http" || !loopback.Is(u.Hostname()) {
		return nil, fmt.Errorf("faultproxy: target %q must be an http:// URL on loopback", target)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("faultproxy: listen: %w", err)
	}
	p := &Proxy{
		URL: "http://" + ln.Addr().String(), target: u, done: make(chan struct{}),
		client: &http.Client{Transport: &http.Transport{}},
		rng:    rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64())),
		healed: make(chan struct{}),
	}
	close(p.healed)
	p.srv = &http.Server{Handler: p, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		defer close(p.done)
		_ = p.srv.Serve(ln) // ends with Close
	}()
	return p, nil
}

// SetFaults gives each following request a fault with probability rate
// (0 to 1); the faults come in the order of Faults, round robin, so every
// kind is injected once every len(Faults()) faults.
func (p *Proxy) SetFaults(rate float64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.rate = rate
	select {
	case <-p.healed:
		p.healed = make(chan struct{})
	default:
	}
}

// Heal stops injecting faults and ends every hung request.
func (p *Proxy) Heal() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.rate = 0
	select {
	case <-p.healed:
	default:
		close(p.healed)
	}
}

// Records returns every request taken so far, in arrival order.
func (p *Proxy) Records() []Record {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Record(nil), p.records...)
}

// Close stops the proxy and drops its connections.
func (p *Proxy) Close() error {
	p.Heal()
	err := p.srv.Close()
	<-p.done
	p.client.CloseIdleConnections()
	return err
}

// pick records a request and decides its fault.
func (p *Proxy) pick(r *http.Request) (Fault, <-chan struct{}, time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	f := None
	if p.rate > 0 && p.rng.Float64() < p.rate {
		all := Faults()
		f = all[p.next%len(all)]
		p.next++
	}
	p.records = append(p.records, Record{Time: time.Now(), Method: r.Method, Fault: f})
	return f, p.healed, time.Duration(p.rng.Int64N(int64(MaxLatency)))
}

// ServeHTTP answers one request, with its fault.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f, healed, delay := p.pick(r)
	switch f {
	case ResetBefore:
		reset(w)
		return
	case Status500:
		writeEnvelope(w, http.StatusInternalServerError, "api_error", "internal_error")
		return
	case Status503:
		http.Error(w, "Service Unavailable", http.StatusServiceUnavailable)
		return
	case RetryAfter429:
		w.Header().Set("Retry-After", "1")
		writeEnvelope(w, http.StatusTooManyRequests, "rate_limit_error", "rate_limited")
		return
	case Bare429:
		writeEnvelope(w, http.StatusTooManyRequests, "rate_limit_error", "rate_limited")
		return
	case Hang:
		hang(r.Context(), healed)
		reset(w)
		return
	case Latency:
		if !pause.For(r.Context(), delay) {
			return
		}
	}
	p.forward(w, r, f)
}

// forward sends r to the server and its answer back, or the fault that
// follows the server's handling.
func (p *Proxy) forward(w http.ResponseWriter, r *http.Request, f Fault) {
	status, header, body, err := p.roundTrip(r)
	switch {
	case err != nil:
		http.Error(w, "Bad Gateway: "+err.Error(), http.StatusBadGateway)
	case f == ResetAfter:
		reset(w)
	case f == Status502After:
		http.Error(w, "Bad Gateway", http.StatusBadGateway)
	default:
		copyHeader(w.Header(), header)
		w.WriteHeader(status)
		if f == CutBody {
			_, _ = w.Write(body[:len(body)/2])
			if fl, ok := w.(http.Flusher); ok {
				fl.Flush()
			}
			panic(http.ErrAbortHandler) // closes the connection mid-body
		}
		_, _ = w.Write(body)
	}
}

// roundTrip sends r to the server and reads the whole answer.
func (p *Proxy) roundTrip(r *http.Request) (int, http.Header, []byte, error) {
	out := r.Clone(r.Context())
	out.RequestURI = ""
	u := *r.URL
	u.Scheme, u.Host = p.target.Scheme, p.target.Host
	out.URL = &u
	out.Host = p.target.Host
	resp, err := p.client.Do(out)
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	body, err := readBody(resp)
	if err != nil {
		return 0, nil, nil, err
	}
	return resp.StatusCode, resp.Header, body, nil
}

// reset closes the client's connection with a TCP RST.
func reset(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic(http.ErrAbortHandler)
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetLinger(0) // close sends RST
	}
	_ = conn.Close()
}

// hang waits until healed is closed, ctx ends or MaxHang passes.
func hang(ctx context.Context, healed <-chan struct{}) {
	t := time.NewTimer(MaxHang)
	defer t.Stop()
	select {
	case <-healed:
	case <-ctx.Done():
	case <-t.C:
	}
}

// writeEnvelope answers status with the protocol's error envelope.
func writeEnvelope(w http.ResponseWriter, status int, kind, code string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"type":"error","error":{"type":%q,"message":"injected by faultproxy","details":{"error_code":%q}}}`, kind, code)
}

func copyHeader(dst, src http.Header) {
	for k, vs := range src {
		for _, v := range vs {
			dst.Add(k, v)
		}
	}
}

// maxBody bounds an answer the proxy holds: more than any test sends.
const maxBody = 64 << 20

// readBody reads resp's whole body, at most maxBody bytes.
func readBody(resp *http.Response) ([]byte, error) {
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err == nil && len(body) > maxBody {
		err = fmt.Errorf("answer body over %d bytes", maxBody)
	}
	return body, err
}
