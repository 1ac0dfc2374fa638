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
)

// startDeltaWait issues a change wait asking for the changes since inm
// alone, with body sent along when not empty (which keeps the wait in its
// handler instead of parked on its connection).
func startDeltaWait(t *testing.T, s *servertest.Server, inm, body string) <-chan reply {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	out := make(chan reply, 1)
	go func() {
		out <- doCtx(t, ctx, s.URL, req{query: memQuery(repo, "view", "hashes", "wait", "30", "delta", "1"), token: s.Token,
			body: body, headers: map[string]string{"If-None-Match": `"` + inm + `"`}})
	}()
	return out
}

func TestWaitAnswersTheChangesSince(t *testing.T) {
	for name, body := range map[string]string{"parked": "", "held by its handler": "."} {
		t.Run(name, func(t *testing.T) {
			s := servertest.Start(t)
			put(t, s, repo, map[string]string{"a.md": "a", "b.md": "b", "c.md": "c", "e.md": "e"})
			put(t, s, repo, nil, "e.md")
			held := getHashes(t, s, repo)
			got := startDeltaWait(t, s, held.Checksum, body)
			awaitWaiters(t, s, 1)
			put(t, s, repo, map[string]string{"a.md": "a2", "d.md": "d", "e.md": "back"}, "b.md")
			r := <-got
			if r.status != http.StatusOK {
				t.Fatalf("woken wait = %d %s, want 200", r.status, r.body)
			}
			var h api.HashesResponse
			decode(t, r, &h)
			now := getHashes(t, s, repo)
			wantSums := map[string]string{"a.md": api.EntryChecksum("a2"), "d.md": api.EntryChecksum("d"), "e.md": api.EntryChecksum("back")}
			if h.ChangedSince != held.Checksum || h.Checksum != now.Checksum || !maps.Equal(h.EntryChecksums, wantSums) ||
				len(h.DeletedEntries) != 1 || h.DeletedEntries["b.md"] != now.DeletedEntries["b.md"] {
				t.Fatalf("answer = %+v, want the changes since %s: %v and b.md deleted", h, held.Checksum, wantSums)
			}
			wantValues := map[string]string{"a.md": "a2", "d.md": "d", "e.md": "back"}
			if !maps.Equal(h.Entries, wantValues) {
				t.Errorf("answer's values = %v, want the commit's %v", h.Entries, wantValues)
			}
			whole, err := h.Apply(held)
			if err != nil {
				t.Fatal(err)
			}
			if !maps.Equal(whole.EntryChecksums, now.EntryChecksums) || !maps.Equal(whole.DeletedEntries, now.DeletedEntries) {
				t.Errorf("applied = %v %v, want %v %v", whole.EntryChecksums, whole.DeletedEntries, now.EntryChecksums, now.DeletedEntries)
			}
		})
	}
}

func TestWaitAtAnOldChecksumAnswersWhole(t *testing.T) {
	s := servertest.Start(t)
	first := put(t, s, repo, map[string]string{"a.md": "a"})
	put(t, s, repo, map[string]string{"b.md": "b"})
	r := <-startDeltaWait(t, s, first.Checksum, "")
	var h api.HashesResponse
	decode(t, r, &h)
	if r.status != http.StatusOK || h.ChangedSince != "" || len(h.EntryChecksums) != 2 || h.Entries != nil {
		t.Errorf("wait at a checksum the server did not see it at = %d %+v, want the whole hashes", r.status, h)
	}
}

func TestDeltaParamRefused(t *testing.T) {
	s := servertest.Start(t)
	put(t, s, repo, map[string]string{"a.md": "a"})
	for name, q := range map[string]string{
		"without wait": memQuery(repo, "view", "hashes", "delta", "1"),
		"not 1":        memQuery(repo, "view", "hashes", "wait", "5", "delta", "true"),
		"twice":        memQuery(repo, "view", "hashes", "wait", "5", "delta", "1", "delta", "1"),
	} {
		r := do(t, s.URL, req{query: q, token: s.Token, headers: map[string]string{"If-None-Match": `"x"`}})
		if r.status != http.StatusBadRequest {
			t.Errorf("%s: %d %s, want 400", name, r.status, r.body)
		}
	}
}

// A commit whose values are over api.WaitValueBytes leaves the wait's
// answer without values: the client pulls them.
func TestWaitAnswerOfALargeCommitCarriesNoValues(t *testing.T) {
	s := servertest.Start(t, servertest.WithLimits(api.Limits{MaxEntryBytes: 2 * api.WaitValueBytes}))
	put(t, s, repo, map[string]string{"a.md": "a"})
	held := getHashes(t, s, repo)
	got := startDeltaWait(t, s, held.Checksum, "")
	awaitWaiters(t, s, 1)
	put(t, s, repo, map[string]string{"a.md": strings.Repeat("note text\n", api.WaitValueBytes/10+1)})
	r := <-got
	var h api.HashesResponse
	decode(t, r, &h)
	if r.status != http.StatusOK || h.ChangedSince != held.Checksum || len(h.EntryChecksums) != 1 || h.Entries != nil {
		t.Errorf("answer = %d, changes since %q, %d checksums, %d values; want the change without its value", r.status, h.ChangedSince, len(h.EntryChecksums), len(h.Entries))
	}
}
