//go:build testhooks

package daemon

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/api"
)

// traceEvent is one request a daemon sent, as its transport saw it start
// or answer.
type traceEvent struct {
	id     int
	node   string
	kind   string // GET, PUT, wait, probe or history
	pre    string // the If-Match or If-None-Match checksum
	done   bool   // the answer (or the failure) came back
	status int    // the answer's status, 0 for a failure
	etag   string // the checksum the answer names
}

// tracer records, in order, every request some daemons send and every
// answer they get. It can hold a node's PUT answer until the node's change
// wait has asked its worker to pull, and a node's change wait answers
// until a gate opens.
type tracer struct {
	mu        sync.Mutex
	events    []traceEvent
	nextID    int
	holdPut   map[string]chan struct{} // node -> closed once its PUT may answer
	askedAt   map[string]string        // team directory -> node, for the pull hook
	gates     map[string]chan struct{} // node -> closed once its waits may answer
	held      map[string]bool          // node -> its PUT answer was held until the wait asked to pull
	nodes     map[string]string        // team directory -> node, for the refresh hook
	refreshed map[string]int           // node -> how many events were recorded when its last provenance refresh ended
}

func newTracer() *tracer {
	return &tracer{holdPut: map[string]chan struct{}{}, askedAt: map[string]string{}, gates: map[string]chan struct{}{}, held: map[string]bool{},
		nodes: map[string]string{}, refreshed: map[string]int{}}
}

// transport returns a RoundTripper that records node's requests.
func (tr *tracer) transport(node string, next http.RoundTripper) http.RoundTripper {
	return traceTransport{node: node, tr: tr, next: next}
}

type traceTransport struct {
	node string
	tr   *tracer
	next http.RoundTripper
}

func (t traceTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ev := traceEvent{node: t.node, kind: requestKind(req), pre: strings.Trim(req.Header.Get("If-Match")+req.Header.Get("If-None-Match"), `"`)}
	ev.id = t.tr.add(ev)
	resp, err := t.next.RoundTrip(req)
	ev.done = true
	if resp != nil {
		ev.status, ev.etag = resp.StatusCode, strings.Trim(resp.Header.Get("ETag"), `"`)
	}
	switch {
	case ev.kind == "PUT":
		t.tr.waitHold(t.node)
	case ev.kind == "wait" && ev.status == http.StatusOK:
		t.tr.waitGate(t.node)
	}
	t.tr.add(ev)
	return resp, err
}

// requestKind names a request of the protocol.
func requestKind(req *http.Request) string {
	q := req.URL.Query()
	switch {
	case req.Method == http.MethodPut:
		return "PUT"
	case q.Get(api.ParamWait) != "":
		return "wait"
	case q.Get(api.ParamView) != "" && req.Header.Get(api.HeaderHint) != "":
		return "announce"
	case q.Get(api.ParamView) != "":
		return "probe"
	case strings.HasSuffix(req.URL.Path, api.HistoryPath):
		return "history"
	}
	return req.Method
}

func (tr *tracer) add(ev traceEvent) int {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if !ev.done {
		tr.nextID++
		ev.id = tr.nextID
	}
	tr.events = append(tr.events, ev)
	return ev.id
}

// holdPutUntilAsked holds node's PUT answers until node's change wait
// asks its worker to pull (the daemon's own writes are then not yet
// recorded: the window where a wait's answer can be taken for a
// teammate's change), or 10s pass.
func (tr *tracer) holdPutUntilAsked(node, dir string) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.holdPut[node] = make(chan struct{})
	tr.askedAt[dir] = node
}

// asked is the pull hook: the change wait of the repo in dir asks its
// worker to pull.
func (tr *tracer) asked(dir string) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	node, ok := tr.askedAt[dir]
	if ch := tr.holdPut[node]; ok && ch != nil {
		close(ch)
		delete(tr.holdPut, node)
		tr.held[node] = true
	}
}

func (tr *tracer) waitHold(node string) {
	tr.mu.Lock()
	ch := tr.holdPut[node]
	tr.mu.Unlock()
	if ch == nil {
		return
	}
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		tr.mu.Lock()
		delete(tr.holdPut, node)
		tr.mu.Unlock()
	}
}

// closeGate holds node's change wait answers until the returned func is
// called (or 30s pass).
func (tr *tracer) closeGate(node string) (open func()) {
	ch := make(chan struct{})
	tr.mu.Lock()
	tr.gates[node] = ch
	tr.mu.Unlock()
	return sync.OnceFunc(func() {
		tr.mu.Lock()
		delete(tr.gates, node)
		tr.mu.Unlock()
		close(ch)
	})
}

func (tr *tracer) waitGate(node string) {
	tr.mu.Lock()
	ch := tr.gates[node]
	tr.mu.Unlock()
	if ch == nil {
		return
	}
	select {
	case <-ch:
	case <-time.After(30 * time.Second):
	}
}

// mark returns the position from which trace reads.
func (tr *tracer) mark() int {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return len(tr.events)
}

// armed reports whether node has exactly one request in flight, and that
// is a change wait with If-None-Match sum.
func (tr *tracer) armed(node, sum string) bool {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	var open []traceEvent
	for _, ev := range tr.events {
		switch {
		case ev.node != node:
		case !ev.done:
			open = append(open, ev)
		default:
			open = slices.DeleteFunc(open, func(o traceEvent) bool { return o.id == ev.id })
		}
	}
	return len(open) == 1 && open[0].kind == "wait" && open[0].pre == sum
}

// settled reports whether node is armed on sum and a provenance refresh
// of its ended after its last other request was answered: nothing more of
// its last sync is to come.
func (tr *tracer) settled(node, sum string) bool {
	if !tr.armed(node, sum) {
		return false
	}
	tr.mu.Lock()
	defer tr.mu.Unlock()
	end, ok := tr.refreshed[node]
	if !ok {
		return false
	}
	for i, ev := range slices.Backward(tr.events) {
		if ev.node == node && ev.done && ev.kind != "wait" {
			return i < end
		}
	}
	return true
}

// traceNode has tr see the provenance refreshes of the daemon of node on
// dir, until the test ends.
func (tr *tracer) traceNode(t *testing.T, node, dir string) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.nodes[dir] = node
	testHookRefreshed = tr.refreshedAt
	t.Cleanup(func() { testHookRefreshed = nil })
}

// refreshedAt is the refresh hook: a provenance refresh of the repo in
// dir ended, after the events recorded so far.
func (tr *tracer) refreshedAt(dir string) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if node, ok := tr.nodes[dir]; ok {
		tr.refreshed[node] = len(tr.events)
	}
}

// trace returns the requests answered or started since from, one line
// each, with the checksums named as names says, less the re-armed waits:
// a change wait answered with a checksum one of its own daemon's PUTs
// returned, after which that daemon's next request, other than the PUTs
// of a push still going on and the history read for the provenance
// record, is its next change wait (no pull between).
// The requests still in flight come last, as "in flight".
func (tr *tracer) trace(from int, names map[string]string) []string {
	tr.mu.Lock()
	events := slices.Clone(tr.events)
	tr.mu.Unlock()
	label := func(sum string) string {
		if name, ok := names[sum]; ok {
			return name
		}
		return sum
	}
	started := map[int]traceEvent{}
	var lines, open []string
	for i, ev := range events {
		if !ev.done {
			started[ev.id] = ev
			continue
		}
		delete(started, ev.id)
		if i < from || rearmed(events, i) {
			continue
		}
		if ev.kind == "history" {
			lines = append(lines, fmt.Sprintf("%s history: %d", ev.node, ev.status))
			continue
		}
		if ev.kind == "announce" {
			// Sent beside the push, unwaited for: whether it reaches the
			// server before the PUT's commit is no part of the trace.
			lines = append(lines, fmt.Sprintf("%s announce %s=%s", ev.node, preName(ev.kind), label(ev.pre)))
			continue
		}
		lines = append(lines, fmt.Sprintf("%s %s %s=%s: %d %s", ev.node, ev.kind, preName(ev.kind), label(ev.pre), ev.status, label(ev.etag)))
	}
	for _, ev := range started {
		open = append(open, fmt.Sprintf("%s %s %s=%s: in flight", ev.node, ev.kind, preName(ev.kind), label(ev.pre)))
	}
	slices.Sort(open)
	return append(lines, open...)
}

// rearmed reports whether events[i], an answer, is a re-armed wait (see
// trace).
func rearmed(events []traceEvent, i int) bool {
	ev := events[i]
	if ev.kind != "wait" || ev.status != http.StatusOK {
		return false
	}
	own := slices.ContainsFunc(events, func(p traceEvent) bool {
		return p.node == ev.node && p.kind == "PUT" && p.done && p.status == http.StatusOK && p.etag == ev.etag
	})
	if !own {
		return false
	}
	for _, next := range events[i+1:] {
		if next.node != ev.node || next.done || next.kind == "PUT" || next.kind == "history" || next.kind == "announce" {
			continue
		}
		return next.kind == "wait"
	}
	return false
}

func preName(kind string) string {
	if kind == "PUT" {
		return "if-match"
	}
	return "if-none-match"
}

// putChecksums lists the checksums node's PUTs answered with since from.
func (tr *tracer) putChecksums(node string, from int) []string {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	var out []string
	for _, ev := range tr.events[from:] {
		if ev.node == node && ev.kind == "PUT" && ev.done && ev.status == http.StatusOK {
			out = append(out, ev.etag)
		}
	}
	return out
}
