package server

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/teammemd/teammemd/server/api"
)

// countingScanner finds nothing and counts the values and the key names
// it was asked to scan; the scan of the slug of target's repo alone, which
// names the repo in the access log, is not counted.
type countingScanner struct{ values atomic.Int64 }

func (c *countingScanner) ScanEntries(_ context.Context, entries map[string]string) (map[string][]string, error) {
	c.values.Add(int64(len(entries)))
	return nil, nil
}

func (c *countingScanner) ScanKeys(_ context.Context, keys []string) (map[string][]string, error) {
	if slices.Equal(keys, []string{"acme/app"}) {
		return nil, nil
	}
	c.values.Add(int64(len(keys)))
	return nil, nil
}

// manyEntriesBody returns a PUT body of as many empty entries as fit in
// maxBytes, and how many that is.
func manyEntriesBody(maxBytes int) (string, int) {
	var b strings.Builder
	b.WriteString(`{"entries":{`)
	n := 0
	for {
		entry := fmt.Sprintf(`"k%d":""`, n)
		if n > 0 {
			entry = "," + entry
		}
		if b.Len()+len(entry)+2 > maxBytes {
			break
		}
		b.WriteString(entry)
		n++
	}
	b.WriteString(`}}`)
	return b.String(), n
}

// A PUT holding more entries than a repo may hold is refused while its body
// is decoded: no key past the limit is validated, nothing is scanned or
// stored, and the refusal allocates a small, fixed amount of memory however
// many entries the body holds.
func TestPutOverEntryCountRefusedWhileDecoding(t *testing.T) {
	sc := &countingScanner{}
	s, tok := newInternal(t, Config{}, Options{Scanner: sc})
	body, n := manyEntriesBody(api.DefaultMaxBodyBytes)
	if n < 150_000 {
		t.Fatalf("test body holds %d entries, want over 150,000", n)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	w := call(s, tok, http.MethodPut, target, body)
	runtime.ReadMemStats(&after)

	e := api.ParseError(w.Code, w.Body.Bytes())
	maxEntries, _ := e.IntDetail("max_entries")
	received, _ := e.IntDetail("received_entries")
	if w.Code != http.StatusRequestEntityTooLarge || e.Code != api.CodeTooManyEntries || maxEntries != api.DefaultMaxEntries ||
		received != api.DefaultMaxEntries+1 || !strings.Contains(e.Message, fmt.Sprintf("more than %d entries", api.DefaultMaxEntries)) {
		t.Errorf("PUT of %d entries = %d %s, want 413 %s, max_entries %d, received_entries %d, \"more than %d entries\"",
			n, w.Code, w.Body, api.CodeTooManyEntries, api.DefaultMaxEntries, api.DefaultMaxEntries+1, api.DefaultMaxEntries)
	}
	if got := sc.values.Load(); got != 0 {
		t.Errorf("PUT of %d entries scanned %d values, want 0 (refused before the scan)", n, got)
	}
	const maxAlloc = 5 << 20
	if got := after.TotalAlloc - before.TotalAlloc; got > maxAlloc {
		t.Errorf("PUT of %d entries allocated %d bytes, want at most %d", n, got, maxAlloc)
	}
	if g := call(s, tok, http.MethodGet, target, ""); g.Code != http.StatusNotFound {
		t.Errorf("GET after the refused PUT = %d, want 404 (nothing stored)", g.Code)
	}
}

// The same holds for soft deletes: a body deleting more keys than a repo may
// hold is refused while it is decoded.
func TestPutOverDeleteCountRefusedWhileDecoding(t *testing.T) {
	s, tok := newInternal(t, Config{Limits: api.Limits{MaxEntries: 10}}, Options{})
	var b bytes.Buffer
	b.WriteString(`{"soft_delete_keys":[`)
	for i := range 11 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"k%d"`, i)
	}
	b.WriteString(`]}`)
	w := call(s, tok, http.MethodPut, target, b.String())
	e := api.ParseError(w.Code, w.Body.Bytes())
	if max, _ := e.IntDetail("max_soft_delete_keys"); w.Code != http.StatusRequestEntityTooLarge || e.Code != api.CodeBodyTooLarge || max != 10 {
		t.Errorf("PUT of 11 deletes with max_entries 10 = %d %s, want 413 %s with max_soft_delete_keys 10", w.Code, w.Body, api.CodeBodyTooLarge)
	}
}
