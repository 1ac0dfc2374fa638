package server_test

import (
	"bufio"
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server"
	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/servertest"
	"github.com/teammemd/teammemd/server/store"
	"github.com/teammemd/teammemd/server/wake"
)

// waitQuery is a change wait of n seconds.
func waitQuery(repo string, n int) string {
	return memQuery(repo, "view", "hashes", "wait", strconv.Itoa(n))
}

// startWait issues a change wait in the background; its answer arrives on
// the returned channel.
func startWait(t *testing.T, s *servertest.Server, repo, inm string, n int) <-chan reply {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	out := make(chan reply, 1)
	go func() {
		out <- doCtx(t, ctx, s.URL, req{query: waitQuery(repo, n), token: s.Token,
			headers: map[string]string{"If-None-Match": `"` + inm + `"`}})
	}()
	return out
}

// waiters reads the change waiters gauge from /metrics.
func waiters(t *testing.T, s *servertest.Server) int {
	t.Helper()
	r := do(t, s.URL, req{path: "/metrics"})
	sc := bufio.NewScanner(strings.NewReader(string(r.body)))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "teammemd_change_waiters "); ok {
			n, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatalf("parse gauge %q: %v", v, err)
			}
			return int(n)
		}
	}
	t.Fatal("no teammemd_change_waiters in /metrics")
	return 0
}

// awaitWaiters polls until n clients wait, within a bounded number of tries.
func awaitWaiters(t *testing.T, s *servertest.Server, n int) {
	t.Helper()
	for range 500 {
		if waiters(t, s) == n {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("change waiters never reached %d", n)
}

func TestWaitWakesOnPut(t *testing.T) {
	s := servertest.Start(t)
	first := put(t, s, repo, map[string]string{"a.md": "a"})
	got := startWait(t, s, repo, first.Checksum, 30)
	awaitWaiters(t, s, 1)
	second := put(t, s, repo, map[string]string{"b.md": "b"})
	r := <-got
	if r.status != http.StatusOK {
		t.Fatalf("woken wait = %d %s, want 200", r.status, r.body)
	}
	var h api.HashesResponse
	decode(t, r, &h)
	if h.Checksum != second.Checksum || len(h.EntryChecksums) != 2 || r.header.Get("ETag") != api.ETag(second.Checksum) {
		t.Errorf("woken wait = %+v ETag %s, want checksum %s with 2 entries", h, r.header.Get("ETag"), second.Checksum)
	}
}

func TestWaitForFirstWrite(t *testing.T) {
	s := servertest.Start(t)
	got := startWait(t, s, repo, api.EmptyRepoChecksum, 30)
	awaitWaiters(t, s, 1)
	pr := put(t, s, repo, map[string]string{"a.md": "a"})
	if r := <-got; r.status != http.StatusOK || !strings.Contains(string(r.body), pr.Checksum) {
		t.Errorf("wait on a never-written repo = %d %s, want 200 with %s", r.status, r.body, pr.Checksum)
	}
}

func TestWaitNoOpPutKeepsWaiting(t *testing.T) {
	s := servertest.Start(t)
	first := put(t, s, repo, map[string]string{"a.md": "a"})
	got := startWait(t, s, repo, first.Checksum, 30)
	awaitWaiters(t, s, 1)
	put(t, s, repo, map[string]string{"a.md": "a"})
	put(t, s, "acme/other", map[string]string{"a.md": "x"})
	select {
	case r := <-got:
		t.Fatalf("wait ended after a no-op PUT: %d %s", r.status, r.body)
	default:
	}
	put(t, s, repo, map[string]string{"a.md": "changed"})
	if r := <-got; r.status != http.StatusOK {
		t.Errorf("wait after a real change = %d, want 200", r.status)
	}
}

func TestWaitAnswersAtOnce(t *testing.T) {
	s := servertest.Start(t)
	first := put(t, s, repo, map[string]string{"a.md": "a"})
	tests := []struct {
		name  string
		repo  string
		inm   string
		want  int
		noINM bool
	}{
		{"without If-None-Match", repo, "", http.StatusOK, true},
		{"older checksum", repo, api.EmptyRepoChecksum, http.StatusOK, false},
		{"never written, other checksum", "acme/none", first.Checksum, http.StatusNotFound, false},
	}
	for _, tt := range tests {
		r := req{query: waitQuery(tt.repo, 60), token: s.Token}
		if !tt.noINM {
			r.headers = map[string]string{"If-None-Match": `"` + tt.inm + `"`}
		}
		if got := do(t, s.URL, r); got.status != tt.want {
			t.Errorf("%s: wait = %d, want %d at once", tt.name, got.status, tt.want)
		}
	}
}

func TestWaitCap(t *testing.T) {
	s := servertest.Start(t, servertest.WithConfig(func(c *server.Config) { c.MaxWaiters = 1 }))
	got := startWait(t, s, repo, api.EmptyRepoChecksum, 30)
	awaitWaiters(t, s, 1)
	r := do(t, s.URL, req{query: waitQuery(repo, 30), token: s.Token,
		headers: map[string]string{"If-None-Match": `"` + api.EmptyRepoChecksum + `"`}})
	if r.status != http.StatusServiceUnavailable || r.header.Get("Retry-After") == "" {
		t.Errorf("wait over the cap = %d Retry-After %q, want 503 with Retry-After", r.status, r.header.Get("Retry-After"))
	}
	put(t, s, repo, map[string]string{"a.md": "a"})
	<-got
}

func TestShutdownEndsWaits(t *testing.T) {
	s := servertest.Start(t)
	var got []<-chan reply
	for range 3 {
		got = append(got, startWait(t, s, repo, api.EmptyRepoChecksum, 60))
	}
	awaitWaiters(t, s, 3)
	s.Stop()
	for i, ch := range got {
		if r := <-ch; r.status != http.StatusServiceUnavailable || r.header.Get("Retry-After") == "" {
			t.Errorf("waiter %d at shutdown = %d Retry-After %q, want 503 with Retry-After", i, r.status, r.header.Get("Retry-After"))
		}
	}
}

func TestRestartKeepsData(t *testing.T) {
	s := servertest.Start(t)
	pr := put(t, s, repo, map[string]string{"a.md": "a"})
	s.Restart(t)
	if h := getHashes(t, s, repo); h.Checksum != pr.Checksum {
		t.Errorf("after restart checksum = %s, want %s", h.Checksum, pr.Checksum)
	}
}

// TestWaitWokenByWaker writes straight to the shared database, as another
// replica would, and wakes the wait through the Waker the server was given,
// as a cross-replica change feed does.
func TestWaitWokenByWaker(t *testing.T) {
	feed := wake.NewBroker()
	s := servertest.Start(t, servertest.WithOptions(func(o *server.Options) { o.Waker = feed }))
	first := put(t, s, repo, map[string]string{"a.md": "a"})
	got := startWait(t, s, repo, first.Checksum, 30)
	awaitWaiters(t, s, 1)
	res, err := s.Store.Apply(context.Background(), store.Write{Repo: repo, Entries: map[string]string{"b.md": "b"},
		Subject: "replica", Time: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	feed.Publish(repo)
	if r := <-got; r.status != http.StatusOK || r.header.Get("ETag") != api.ETag(res.Checksum) {
		t.Errorf("wait woken by the waker = %d ETag %s, want 200 ETag %s", r.status, r.header.Get("ETag"), api.ETag(res.Checksum))
	}
}
