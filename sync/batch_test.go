package memsync

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/servertest"
)

func TestPackBatches(t *testing.T) {
	big := strings.Repeat("x", api.BatchMaxBytes)
	tests := []struct {
		name    string
		entries []upload
		deletes []string
		limit   int
		want    []int // entries+deletes per batch
	}{
		{"empty", nil, nil, 100, nil},
		{"one", []upload{{Key: "a.md", Value: "1"}}, nil, 100, []int{1}},
		{"split", []upload{{Key: "a.md", Value: strings.Repeat("a", 30)}, {Key: "b.md", Value: strings.Repeat("b", 30)}}, nil, 60, []int{1, 1}},
		{"fit exactly", []upload{{Key: "a", Value: ""}, {Key: "b", Value: ""}}, nil, 14 + 7 + 7, []int{2}},
		{"oversized alone", []upload{{Key: "a.md", Value: "1"}, {Key: "b.md", Value: big}, {Key: "c.md", Value: "3"}}, nil, api.BatchMaxBytes, []int{1, 1, 1}},
		{"deletes follow", []upload{{Key: "a.md", Value: "1"}}, []string{"z.md", "y.md"}, 1000, []int{3}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := packBatches(tc.entries, tc.deletes, tc.limit)
			if len(got) != len(tc.want) {
				t.Fatalf("packBatches = %d batches, want %d", len(got), len(tc.want))
			}
			for i, b := range got {
				if n := len(b.Entries) + len(b.Deletes); n != tc.want[i] {
					t.Errorf("batch %d holds %d items, want %d", i, n, tc.want[i])
				}
				checkBatch(t, b, tc.limit)
			}
		})
	}
}

// checkBatch holds a batch to the protocol's count: its encoded body is the
// counted size less one per list (the count adds a comma after the last
// entry and after the last deleted key), and
// a batch of several items stays within limit.
func checkBatch(t *testing.T, b batch, limit int) {
	t.Helper()
	body, err := encodePut(b)
	if err != nil {
		t.Fatal(err)
	}
	over := 0
	if len(b.Entries) > 0 {
		over++
	}
	if len(b.Deletes) > 0 {
		over++
	}
	if len(body) != b.Bytes-over {
		t.Errorf("encoded body is %d bytes, counted %d", len(body), b.Bytes)
	}
	if len(b.Entries)+len(b.Deletes) > 1 && b.Bytes > limit {
		t.Errorf("batch of %d items counts %d bytes, over %d", len(b.Entries)+len(b.Deletes), b.Bytes, limit)
	}
	for i := 1; i < len(b.Entries); i++ {
		if b.Entries[i-1].Key >= b.Entries[i].Key {
			t.Errorf("entries not sorted: %q before %q", b.Entries[i-1].Key, b.Entries[i].Key)
		}
	}
}

func FuzzPackBatches(f *testing.F) {
	f.Add("a.md", "1", "b.md", "<html>&\u2028", "z.md", 60)
	f.Add("k\"ey", "\x01\xff", "x", strings.Repeat("v", 300), "", 200)
	f.Fuzz(func(t *testing.T, k1, v1, k2, v2, del string, limit int) {
		if limit < 0 || limit > 1<<20 || k1 == k2 {
			return
		}
		var dels []string
		if del != "" && del != k1 && del != k2 {
			dels = []string{del}
		}
		batches := packBatches([]upload{{Key: k1, Value: v1}, {Key: k2, Value: v2}}, dels, limit)
		n := 0
		for _, b := range batches {
			n += len(b.Entries) + len(b.Deletes)
			if len(b.Entries)+len(b.Deletes) == 0 {
				t.Fatal("empty batch")
			}
			checkBatch(t, b, limit)
		}
		if n != 2+len(dels) {
			t.Fatalf("packBatches kept %d items, want %d", n, 2+len(dels))
		}
	})
}

// newProxy serves a loopback reverse proxy to srv that records PUT body
// sizes and calls afterPut after each PUT the server answered.
func newProxy(t *testing.T, srv *servertest.Server, afterPut func(n int)) (*httptest.Server, func() []int) {
	target, _ := url.Parse(srv.URL)
	rp := httputil.NewSingleHostReverseProxy(target)
	var mu sync.Mutex
	var sizes []int
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPut {
			rp.ServeHTTP(w, r)
			return
		}
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(strings.NewReader(string(body)))
		mu.Lock()
		sizes = append(sizes, len(body))
		n := len(sizes)
		mu.Unlock()
		rp.ServeHTTP(w, r)
		if afterPut != nil {
			afterPut(n)
		}
	})
	ps := httptest.NewServer(h)
	t.Cleanup(ps.Close)
	return ps, func() []int { mu.Lock(); defer mu.Unlock(); return append([]int(nil), sizes...) }
}

func TestPush2500EntriesBatchesAndCap(t *testing.T) {
	srv := servertest.Start(t)
	ps, sizes := newProxy(t, srv, nil)
	a := newPeer(t, ps.URL, srv.Token, nil)
	for i := range 2500 {
		a.write(t, fmt.Sprintf("n/%04d.md", i), strings.Repeat("m", 1000))
	}
	rep, err := a.eng.Sync(context.Background())
	if err != nil {
		t.Fatalf("Sync: %v", err)
	}
	got := sizes()
	if rep.PUTs != len(got) {
		t.Errorf("Report.PUTs = %d, proxy saw %d", rep.PUTs, len(got))
	}
	for i, n := range got {
		if n > api.BatchMaxBytes {
			t.Errorf("PUT %d body is %d bytes, over %d", i, n, api.BatchMaxBytes)
		}
	}
	if len(rep.Pushed) != 2000 {
		t.Errorf("pushed %d keys, want 2000 (the server's cap)", len(rep.Pushed))
	}
	notFit := 0
	for _, s := range rep.Skipped {
		if strings.Contains(s.Reason, "at most 2000 entries") {
			notFit++
		}
	}
	if notFit != 500 {
		t.Errorf("%d keys reported as not fitting, want 500", notFit)
	}
	if n := len(serverEntries(t, srv)); n != 2000 {
		t.Errorf("server holds %d entries, want 2000", n)
	}
	if rep := a.sync(t); rep.PUTs > 1 || len(rep.Pushed) != 0 || rep.OverCap == nil || rep.OverCap.Files != 500 {
		t.Errorf("next Sync sent %d PUTs, pushed %d keys, over the cap %+v; want at most 1 PUT (the cap learned again), none pushed, 500 over the cap",
			rep.PUTs, len(rep.Pushed), rep.OverCap)
	}
}

func TestPreconditionFailedMidChainRecovers(t *testing.T) {
	srv := servertest.Start(t)
	other := testClient(t, srv.URL, srv.Token)
	var once sync.Once
	ps, _ := newProxy(t, srv, func(n int) {
		once.Do(func() {
			body := []byte(`{"entries":{"teammate.md":"written between batches\n"}}`)
			if _, err := other.Put(context.Background(), testRepo, "", body); err != nil {
				t.Errorf("teammate Put: %v", err)
			}
		})
	})
	a := newPeer(t, ps.URL, srv.Token, nil)
	for i := range 30 {
		a.write(t, fmt.Sprintf("f%02d.md", i), strings.Repeat("z", 20_000))
	}
	rep := a.sync(t)
	if len(rep.Pushed) != 30 {
		t.Errorf("pushed %d keys, want 30", len(rep.Pushed))
	}
	if got := a.read(t, "teammate.md"); got != "written between batches\n" {
		t.Errorf("teammate.md = %q, want the teammate's write pulled in", got)
	}
	if n := len(serverEntries(t, srv)); n != 31 {
		t.Errorf("server holds %d entries, want 31", n)
	}
	if rep := a.sync(t); rep.PUTs != 0 || len(rep.Pulled) != 0 {
		t.Errorf("next Sync = %d PUTs, pulled %v; want nothing", rep.PUTs, rep.Pulled)
	}
}
