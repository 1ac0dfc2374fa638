//go:build testhooks

package daemon

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/servertest"
	memsync "github.com/teammemd/teammemd/sync"
)

// TestOwnSaveCarriesTheWait: with clients that name their instance, as
// the daemon's do (PROTOCOL.md section 19), alice's save does not answer
// her own change wait: it stays in flight from the old checksum. Bob's
// save then answers it with his change alone, relative to alice's
// checksum, with his note in it: alice applies it to the hashes she
// makes from her own push and writes his note without a GET or a probe.
// Neither daemon reads the history for its provenance record: the PUTs'
// answers and the change waits' name each write's revisions (PROTOCOL.md
// section 20).
func TestOwnSaveCarriesTheWait(t *testing.T) { bubble(t, testOwnSaveCarriesTheWait) }

func testOwnSaveCarriesTheWait(t *testing.T) {
	srv := startServer(t)
	seedRepo(t, srv, map[string]string{"seed.md": "the first note\n"})
	tr := newTracer()
	askPullHook(t, tr.asked)
	dirA, dirB := t.TempDir(), t.TempDir()
	for node, dir := range map[string]string{"alice": dirA, "bob": dirB} {
		tr.traceNode(t, node, dir)
		startNode(t, srv.Token, Plan{Specs: []Spec{{Repo: slug, Dir: dir, Server: srv.URL, Source: "test"}}}, func(o *Options) {
			o.WaitTimeout = 55 * time.Second // no wait times out while the test looks
			o.Open = testOpener(t, srv.Token, t.TempDir(), &counter{next: tr.transport(node, newTransport(t))}, nil, memsync.WithInstance())
		})
	}
	old := serverChecksum(t, srv)
	eventually(t, "both daemons settled on the seeded repo", func() bool {
		return fileIs(filepath.Join(dirA, "seed.md"), "the first note\n")() && fileIs(filepath.Join(dirB, "seed.md"), "the first note\n")() &&
			tr.settled("alice", old) && tr.settled("bob", old)
	})

	from := tr.mark()
	write(t, dirA, "a.md", "alice's save\n")
	var mid string
	eventually(t, "bob has alice's note; alice's wait is still the old one", func() bool {
		mid = serverChecksum(t, srv)
		return mid != old && fileIs(filepath.Join(dirB, "a.md"), "alice's save\n")() && tr.settled("bob", mid) && tr.settled("alice", old)
	})
	write(t, dirB, "b.md", "bob's save\n")
	var last string
	eventually(t, "alice has bob's note and waits on the last checksum, bob still on alice's", func() bool {
		last = serverChecksum(t, srv)
		return last != mid && fileIs(filepath.Join(dirA, "b.md"), "bob's save\n")() && tr.settled("alice", last) && tr.settled("bob", mid)
	})
	got := tr.trace(from, map[string]string{old: "old", mid: "alice's", last: "bob's"})
	want := []string{
		"alice announce if-none-match=old",
		"alice PUT if-match=old: 200 alice's",
		"bob wait if-none-match=old: 200 alice's",
		"bob announce if-none-match=alice's",
		"bob PUT if-match=alice's: 200 bob's",
		"alice wait if-none-match=old: 200 bob's",
		"alice wait if-none-match=bob's: in flight",
		"bob wait if-none-match=alice's: in flight",
	}
	if !slices.Equal(sorted(got), sorted(want)) {
		t.Errorf("trace of two saves =\n\t%s\nwant\n\t%s", strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}
}

// seedRepo writes entries to the server before any daemon starts.
func seedRepo(t *testing.T, srv *servertest.Server, entries map[string]string) {
	t.Helper()
	c, err := memsync.NewClient(srv.URL, oauth2.StaticTokenSource(&oauth2.Token{AccessToken: srv.Token}), memsync.WithTransport(newTransport(t)))
	if err != nil {
		t.Fatal(err)
	}
	body, err := json.Marshal(api.PutRequest{Entries: entries})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Put(t.Context(), slug, "", body); err != nil {
		t.Fatal(err)
	}
}
