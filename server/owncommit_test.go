package server_test

import (
	"bufio"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/servertest"
)

// snapshotReads is how many hashes or full reads the server asked its store
// for, from /metrics.
func snapshotReads(t *testing.T, s *servertest.Server) int {
	t.Helper()
	r := do(t, s.URL, req{path: "/metrics"})
	sc := bufio.NewScanner(strings.NewReader(string(r.body)))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "teammemd_store_operation_duration_seconds_count{") && strings.Contains(line, `op="snapshot"`) {
			n, err := strconv.Atoi(line[strings.LastIndexByte(line, ' ')+1:])
			if err != nil {
				t.Fatalf("parse %q: %v", line, err)
			}
			return n
		}
	}
	return 0
}

// settledReads polls, a bounded number of times, until the store reads
// stop growing, and returns their count.
func settledReads(t *testing.T, s *servertest.Server) int {
	t.Helper()
	last, same := snapshotReads(t, s), 0
	for range 200 {
		time.Sleep(5 * time.Millisecond)
		n := snapshotReads(t, s)
		if n == last {
			if same++; same == 4 {
				return n
			}
			continue
		}
		last, same = n, 0
	}
	t.Fatal("the store reads never settled")
	return 0
}

func TestWaitWokenByItsServersCommitReadsNothing(t *testing.T) {
	s := servertest.Start(t)
	first := put(t, s, repo, map[string]string{"a.md": "a"})
	got := startWait(t, s, repo, first.Checksum, 30)
	awaitWaiters(t, s, 1)
	before := settledReads(t, s)
	second := put(t, s, repo, map[string]string{"b.md": "b"})
	r := <-got
	var h api.HashesResponse
	decode(t, r, &h)
	if r.status != http.StatusOK || h.Checksum != second.Checksum || len(h.EntryChecksums) != 2 {
		t.Fatalf("woken wait = %d %+v, want %s with 2 entries", r.status, h, second.Checksum)
	}
	if after := snapshotReads(t, s); after != before {
		t.Errorf("the wake read the store %d times; the commit that woke it had its state", after-before)
	}
}
