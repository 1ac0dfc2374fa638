package server_test

import (
	"context"
	"maps"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/servertest"
	"github.com/teammemd/teammemd/server/store"
	"github.com/teammemd/teammemd/server/store/postgres/pgtest"
)

// startOwnWait issues a change wait of secs seconds for the changes since
// inm, as the client instance instance with token, to the server at base.
func startOwnWait(t *testing.T, base, token, instance, inm string, secs string) <-chan reply {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	out := make(chan reply, 1)
	go func() {
		out <- doCtx(t, ctx, base, req{query: memQuery(repo, "view", "hashes", "wait", secs, "delta", "1"), token: token,
			headers: map[string]string{"If-None-Match": `"` + inm + `"`, api.HeaderInstance: instance}})
	}()
	return out
}

// putOwn writes entries to repo through the server at base as instance
// with token, If-Match ifMatch when not empty, and fails the test unless
// it answers 200.
func putOwn(t *testing.T, base, token, instance, ifMatch string, entries map[string]string) api.PutResponse {
	t.Helper()
	h := map[string]string{api.HeaderInstance: instance}
	if ifMatch != "" {
		h["If-Match"] = `"` + ifMatch + `"`
	}
	r := do(t, base, req{method: http.MethodPut, repo: repo, token: token, body: putBody(t, entries), headers: h})
	if r.status != http.StatusOK {
		t.Fatalf("PUT as %s = %d %s, want 200", instance, r.status, r.body)
	}
	var pr api.PutResponse
	decode(t, r, &pr)
	return pr
}

// carriedWaits reads teammemd_change_waits_carried_total of the server
// at base.
func carriedWaits(t *testing.T, base string) string {
	t.Helper()
	v := metric(t, base, "teammemd_change_waits_carried_total")
	if v == "" {
		t.Fatal("no teammemd_change_waits_carried_total in /metrics")
	}
	return v
}

// A PUT of the instance whose wait is parked at the checksum it writes
// from carries the wait to the checksum it made: a teammate's write then
// answers it with the changes since that checksum, without the
// instance's own.
func TestOwnWriteCarriesItsWait(t *testing.T) {
	s := servertest.Start(t)
	first := put(t, s, repo, map[string]string{"a.md": "a"})
	got := startOwnWait(t, s.URL, s.Token, "daemon-1", first.Checksum, "30")
	awaitWaiters(t, s, 1)
	own := putOwn(t, s.URL, s.Token, "daemon-1", first.Checksum, map[string]string{"a.md": "mine"})
	if n := carriedWaits(t, s.URL); n != "1" {
		t.Fatalf("waits carried = %s, want 1", n)
	}
	held := getHashes(t, s, repo) // what the writer holds after its PUT
	theirs := put(t, s, repo, map[string]string{"b.md": "theirs"})
	r := <-got
	var h api.HashesResponse
	decode(t, r, &h)
	want := map[string]string{"b.md": api.EntryChecksum("theirs")}
	if r.status != http.StatusOK || h.ChangedSince != own.Checksum || h.Checksum != theirs.Checksum || !maps.Equal(h.EntryChecksums, want) {
		t.Fatalf("answer = %d, since %q at %q, %v; want the teammate's change alone since %q", r.status, h.ChangedSince, h.Checksum, h.EntryChecksums, own.Checksum)
	}
	whole, err := h.Apply(held)
	if err != nil {
		t.Fatalf("apply the answer to the hashes the writer holds: %v", err)
	}
	if whole.Checksum != theirs.Checksum {
		t.Errorf("applied = %s, want %s", whole.Checksum, theirs.Checksum)
	}
}

// A wait is carried only by a write of its own instance and subject that
// found the repo at the wait's checksum; any other write answers it.
func TestOtherWritesAnswerTheWait(t *testing.T) {
	for name, write := range map[string]func(s *servertest.Server, first string) api.PutResponse{
		"another instance": func(s *servertest.Server, first string) api.PutResponse {
			return putOwn(t, s.URL, s.Token, "daemon-2", first, map[string]string{"a.md": "a2"})
		},
		"no If-Match": func(s *servertest.Server, _ string) api.PutResponse {
			return putOwn(t, s.URL, s.Token, "daemon-1", "", map[string]string{"a.md": "a2"})
		},
		"another subject": func(s *servertest.Server, first string) api.PutResponse {
			other := s.CreateToken(t, "someone-else", store.Grant{Pattern: "**", Level: store.LevelWrite})
			return putOwn(t, s.URL, other, "daemon-1", first, map[string]string{"a.md": "a2"})
		},
	} {
		t.Run(name, func(t *testing.T) {
			s := servertest.Start(t)
			first := put(t, s, repo, map[string]string{"a.md": "a"})
			got := startOwnWait(t, s.URL, s.Token, "daemon-1", first.Checksum, "30")
			awaitWaiters(t, s, 1)
			second := write(s, first.Checksum)
			r := <-got
			var h api.HashesResponse
			decode(t, r, &h)
			if r.status != http.StatusOK || h.ChangedSince != first.Checksum || h.Checksum != second.Checksum {
				t.Errorf("answer = %d, since %q at %q; want the write since %q", r.status, h.ChangedSince, h.Checksum, first.Checksum)
			}
			if n := carriedWaits(t, s.URL); n != "0" {
				t.Errorf("waits carried = %s, want 0", n)
			}
		})
	}
}

// A carried wait that times out answers 304 at the checksum it was
// carried to.
func TestCarriedWaitTimesOutAtItsNewChecksum(t *testing.T) {
	s := servertest.Start(t)
	first := put(t, s, repo, map[string]string{"a.md": "a"})
	got := startOwnWait(t, s.URL, s.Token, "daemon-1", first.Checksum, "1")
	awaitWaiters(t, s, 1)
	own := putOwn(t, s.URL, s.Token, "daemon-1", first.Checksum, map[string]string{"a.md": "mine"})
	r := <-got
	if r.status != http.StatusNotModified || r.header.Get("ETag") != api.ETag(own.Checksum) {
		t.Errorf("timed-out carried wait = %d, ETag %s; want 304 with %s", r.status, r.header.Get("ETag"), api.ETag(own.Checksum))
	}
}

func TestInstanceHeaderRefused(t *testing.T) {
	s := servertest.Start(t)
	first := put(t, s, repo, map[string]string{"a.md": "a"})
	for name, v := range map[string]string{
		"empty":     "",
		"too long":  strings.Repeat("x", api.MaxInstanceBytes+1),
		"bad bytes": "daemon 1",
	} {
		h := map[string]string{api.HeaderInstance: v}
		r := do(t, s.URL, req{method: http.MethodPut, repo: repo, token: s.Token, body: putBody(t, map[string]string{"a.md": "b"}), headers: h})
		if r.status != http.StatusBadRequest || r.errorCode() != api.CodeInvalidRequest {
			t.Errorf("PUT, %s: %d %s, want 400 invalid_request", name, r.status, r.body)
		}
		h["If-None-Match"] = `"` + first.Checksum + `"`
		r = do(t, s.URL, req{query: memQuery(repo, "view", "hashes", "wait", "5"), token: s.Token, headers: h})
		if r.status != http.StatusBadRequest {
			t.Errorf("wait, %s: %d %s, want 400", name, r.status, r.body)
		}
	}
	if now := getHashes(t, s, repo); now.Checksum != first.Checksum {
		t.Errorf("a refused PUT wrote: %s, want %s", now.Checksum, first.Checksum)
	}
}

// On PostgreSQL with two replicas: a PUT through the replica that holds
// the wait carries it, and a teammate's write through the other answers
// it relative to the carried checksum; a PUT through the other replica
// cannot carry it, and answers it as before.
func TestOwnWriteCarriesItsWaitOnPostgres(t *testing.T) {
	db := pgtest.Schema(t)
	a, b := startPGReplica(t, db), startPGReplica(t, db)
	// The first write goes through b while a waits for it: once that wait
	// is answered, its notification is in, and no late one wakes the wait
	// below between its carrying and its answer.
	seen := startOwnWait(t, a.URL, a.Token, "daemon-3", api.EmptyRepoChecksum, "30")
	awaitWaitersAt(t, a.URL)
	first := putOwn(t, b.URL, b.Token, "daemon-2", "", map[string]string{"a.md": "a"})
	if r := <-seen; r.status != http.StatusOK {
		t.Fatalf("wait on a for the first write = %d %s, want 200", r.status, r.body)
	}

	got := startOwnWait(t, a.URL, a.Token, "daemon-1", first.Checksum, "30")
	awaitWaitersAt(t, a.URL)
	own := putOwn(t, a.URL, a.Token, "daemon-1", first.Checksum, map[string]string{"a.md": "mine"})
	theirs := putOwn(t, b.URL, b.Token, "daemon-2", own.Checksum, map[string]string{"b.md": "theirs"})
	var h api.HashesResponse
	r := <-got
	decode(t, r, &h)
	// a reads the repo again after each wake: when it reads only once
	// theirs is in too, it answers with the whole hashes, not the changes
	// since the carried checksum, which it never read.
	if r.status != http.StatusOK || h.Checksum != theirs.Checksum || h.ChangedSince != "" && h.ChangedSince != own.Checksum {
		t.Errorf("answer = %d, since %q at %q; want the teammate's change at %q, since the carried %q or whole", r.status, h.ChangedSince, h.Checksum, theirs.Checksum, own.Checksum)
	}

	got = startOwnWait(t, a.URL, a.Token, "daemon-1", theirs.Checksum, "30")
	awaitWaitersAt(t, a.URL)
	elsewhere := putOwn(t, b.URL, b.Token, "daemon-1", theirs.Checksum, map[string]string{"a.md": "mine again"})
	r = <-got
	h = api.HashesResponse{}
	decode(t, r, &h)
	if r.status != http.StatusOK || h.Checksum != elsewhere.Checksum {
		t.Errorf("wait on the other replica = %d at %q; want it answered with %q", r.status, h.Checksum, elsewhere.Checksum)
	}
	if n := carriedWaits(t, a.URL); n != "1" {
		t.Errorf("waits carried on the replica that held them = %s, want 1", n)
	}
}
