package server_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server"
	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/servertest"
	"github.com/teammemd/teammemd/server/store/postgres/pgtest"
)

// TestPersonalLaneAcrossPostgresReplicas runs two replicas on one
// PostgreSQL database: a change wait on one hears a lane write and a lane
// drop made through the other, and concurrent writes to many lanes through
// both never take the subject past its quota.
func TestPersonalLaneAcrossPostgresReplicas(t *testing.T) {
	db := pgtest.Schema(t)
	quota := servertest.WithConfig(func(c *server.Config) { c.Personal.MaxEntries = 5 })
	a, b := servertest.StartPostgres(t, db, quota), servertest.StartPostgres(t, db, quota)
	alice := a.CreateToken(t, "alice")
	initKey(t, a.URL, alice, keyOne)
	first := putLane(t, a.URL, alice, laneOne, keyOne, map[string]string{"a": "1"})

	wait := func(inm string) <-chan reply {
		ch := make(chan reply, 1)
		go func() {
			ch <- do(t, b.URL, req{path: api.PersonalPath, query: "lane=" + laneOne + "&view=hashes&wait=60", token: alice,
				headers: map[string]string{api.PersonalKeyHeader: keyOne, "If-None-Match": api.ETag(inm)}})
		}()
		return ch
	}
	answered := wait(first.Checksum)
	awaitWaitersAt(t, b.URL)
	second := putLane(t, a.URL, alice, laneOne, keyOne, map[string]string{"b": "2"})
	if r := <-answered; r.status == http.StatusOK {
		var h api.HashesResponse
		decode(t, r, &h)
		if h.Checksum != second.Checksum || r.header.Get(api.PersonalKeyHeader) != keyOne {
			t.Errorf("wait on replica b = %+v key %q, want %s with key %s", h, r.header.Get(api.PersonalKeyHeader), second.Checksum, keyOne)
		}
	} else {
		t.Fatalf("wait on replica b = %d %s, want 200", r.status, r.body)
	}
	answered = wait(second.Checksum)
	awaitWaitersAt(t, b.URL)
	if r := do(t, a.URL, laneReq(http.MethodDelete, alice, laneOne, keyOne, "")); r.status != http.StatusNoContent {
		t.Fatalf("DELETE on replica a = %d %s", r.status, r.body)
	}
	if r := <-answered; r.status != http.StatusNotFound {
		t.Errorf("wait on replica b after the drop = %d %s, want 404", r.status, r.body)
	}

	var wg sync.WaitGroup
	statuses := make([]int, 12)
	for i := range statuses {
		base := []string{a.URL, b.URL}[i%2]
		wg.Go(func() {
			lane := fmt.Sprintf("%032x", i+1)
			statuses[i] = do(t, base, laneReq(http.MethodPut, alice, lane, keyOne, putBody(t, map[string]string{"k": "v"}))).status
		})
	}
	wg.Wait()
	ok := 0
	for _, s := range statuses {
		switch s {
		case http.StatusOK:
			ok++
		case http.StatusRequestEntityTooLarge:
		default:
			t.Errorf("concurrent lane PUT = %d, want 200 or 413", s)
		}
	}
	if ok != 5 {
		t.Errorf("concurrent lane PUTs through two replicas that succeeded = %d, want the quota of 5", ok)
	}
}

// awaitWaitersAt polls the /metrics of the server at base until one change
// wait is held there, within a bounded number of tries.
func awaitWaitersAt(t *testing.T, base string) {
	t.Helper()
	for range 500 {
		if strings.Contains(string(do(t, base, req{path: "/metrics"}).body), "\nteammemd_change_waiters 1\n") {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("no change wait reached %s", base)
}
