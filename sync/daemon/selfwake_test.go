//go:build testhooks

package daemon

import (
	"context"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/servertest"
	"github.com/teammemd/teammemd/sync/internal/hashcount"
)

// startTraced runs a daemon on dir whose requests tr records as node's.
func startTraced(t *testing.T, srv *servertest.Server, tr *tracer, node, dir string, log *slog.Logger) *node {
	t.Helper()
	tr.traceNode(t, node, dir)
	return startNode(t, srv.Token, Plan{Specs: []Spec{{Repo: slug, Dir: dir, Server: srv.URL, Source: "test"}}}, func(o *Options) {
		o.Logger = log
		o.WaitTimeout = 55 * time.Second // no wait times out while the test looks
		o.Open = testOpener(t, srv.Token, t.TempDir(), &counter{next: tr.transport(node, newTransport(t))}, log)
	})
}

// serverChecksum returns the repo checksum the server holds.
func serverChecksum(t *testing.T, srv *servertest.Server) string {
	t.Helper()
	snap, err := srv.Store.Snapshot(context.Background(), slug, false)
	if err != nil {
		return ""
	}
	return snap.Checksum
}

// askPullHook sets the hook that sees a change wait ask its worker to
// pull, until the test ends (after its daemons stopped).
func askPullHook(t *testing.T, f func(dir string)) {
	testHookAskPull = f
	t.Cleanup(func() { testHookAskPull = nil })
}

// tracedPair starts a server and the traced daemons of alice and bob on a
// repo seeded with one note, and returns once both wait on its checksum.
func tracedPair(t *testing.T) (srv *servertest.Server, tr *tracer, dirA, dirB, old string) {
	t.Helper()
	srv = startServer(t)
	tr = newTracer()
	askPullHook(t, tr.asked)
	dirA, dirB = t.TempDir(), t.TempDir()
	write(t, dirA, "seed.md", "the first note\n")
	startTraced(t, srv, tr, "alice", dirA, nil)
	startTraced(t, srv, tr, "bob", dirB, nil)
	eventually(t, "both daemons settled on the seeded repo", func() bool {
		old = serverChecksum(t, srv)
		return fileIs(filepath.Join(dirB, "seed.md"), "the first note\n")() && tr.settled("alice", old) && tr.settled("bob", old)
	})
	return srv, tr, dirA, dirB, old
}

// TestOneSaveTrace: one save costs alice's announcement of her write
// (PROTOCOL.md section 21), her PUT and bob's change wait answer, which carries the note (PROTOCOL.md section 18) so that bob
// sends no GET, and names the write (section 20) so that bob reads no
// history for the provenance record; alice, whose client sends no
// instance here, reads one page of it. Nothing else. The server answers alice's own change wait
// too, as it answers every wait that names an older checksum; alice only
// re-arms it (trace drops such a re-armed wait). The test holds alice's
// PUT answer until her change wait has asked her worker to pull: the wait
// has answered before her push recorded its checksum, the window in which
// her daemon took its own PUT for a teammate's change and pulled again.
func TestOneSaveTrace(t *testing.T) { bubble(t, testOneSaveTrace) }

func testOneSaveTrace(t *testing.T) {
	srv, tr, dirA, dirB, old := tracedPair(t)
	from := tr.mark()
	tr.holdPutUntilAsked("alice", dirA)

	write(t, dirA, "note.md", "alice's save\n")
	var new string
	eventually(t, "bob has the note and both daemons wait on the new checksum", func() bool {
		new = serverChecksum(t, srv)
		return new != old && fileIs(filepath.Join(dirB, "note.md"), "alice's save\n")() && tr.settled("alice", new) && tr.settled("bob", new)
	})
	if !tr.held["alice"] {
		t.Fatal("alice's change wait did not ask to pull while her PUT answer was held; the window was not reached")
	}
	got := tr.trace(from, map[string]string{old: "old", new: "new"})
	want := []string{
		"alice announce if-none-match=old",
		"alice PUT if-match=old: 200 new",
		"alice history: 200",
		"bob wait if-none-match=old: 200 new",
		"alice wait if-none-match=new: in flight",
		"bob wait if-none-match=new: in flight",
	}
	if !slices.Equal(sorted(got), sorted(want)) {
		t.Errorf("trace of one save =\n\t%s\nwant\n\t%s", strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}
}

// TestBurstTrace: a save too large for one PUT is pushed in batches; the
// change wait answered after the first batch is re-armed, not pulled on.
// Bob's change wait answers are held until alice is done, so he pulls
// once: his wait answered with the first batch's hashes, so the pull asks
// for the keys they name changed, sees the second batch in the answer and
// asks again for the keys it names (PROTOCOL.md section 17). Each reads one page of history for the provenance record once
// its sync is done.
func TestBurstTrace(t *testing.T) { bubble(t, testBurstTrace) }

func testBurstTrace(t *testing.T) {
	srv, tr, dirA, dirB, old := tracedPair(t)
	from := tr.mark()
	tr.holdPutUntilAsked("alice", dirA)
	openBob := tr.closeGate("bob")
	defer openBob()

	big := strings.Repeat("a line of a long note\n", 4000) // 88,000 bytes
	for _, k := range []string{"b1.md", "b2.md", "b3.md"} {
		write(t, dirA, k, big)
	}
	var puts []string
	eventually(t, "alice pushed the burst in two PUTs and waits on the last checksum", func() bool {
		puts = tr.putChecksums("alice", from)
		return len(puts) == 2 && serverChecksum(t, srv) == puts[1] && tr.settled("alice", puts[1])
	})
	openBob()
	eventually(t, "bob has the burst and waits on the last checksum", func() bool {
		return fileIs(filepath.Join(dirB, "b3.md"), big)() && tr.settled("bob", puts[1])
	})
	if !tr.held["alice"] {
		t.Fatal("alice's change wait did not ask to pull while her first PUT answer was held; the window was not reached")
	}
	got := tr.trace(from, map[string]string{old: "old", puts[0]: "first", puts[1]: "last"})
	want := []string{
		"alice announce if-none-match=old",
		"alice PUT if-match=old: 200 first",
		"alice PUT if-match=first: 200 last",
		"alice history: 200",
		"bob wait if-none-match=old: 200 first",
		"bob GET if-none-match=old: 200 last",
		"bob GET if-none-match=old: 200 last",
		"bob history: 200",
		"alice wait if-none-match=last: in flight",
		"bob wait if-none-match=last: in flight",
	}
	if !slices.Equal(sorted(got), sorted(want)) {
		t.Errorf("trace of a two-batch push =\n\t%s\nwant\n\t%s", strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}
}

// TestOneNoteHashes: the engine and the daemon together hash a note at
// most twice on its way out (save, push) and twice on its way in (pull,
// the daemon telling the pull's write from a user's, the next push).
func TestOneNoteHashes(t *testing.T) { bubble(t, testOneNoteHashes) }

func testOneNoteHashes(t *testing.T) {
	const note = "---\nname: deploys\ndescription: how we deploy\ntype: project\n---\nDeploys go out on Tuesdays.\n"
	hashes := hashcount.Count(t, func(v []byte) bool { return string(v) == note })
	srv := startServer(t)
	tr := newTracer()
	dirA, dirB := t.TempDir(), t.TempDir()
	logB := newLogRecorder()
	alice := startTraced(t, srv, tr, "alice", dirA, nil)
	startTraced(t, srv, tr, "bob", dirB, slog.New(logB))
	eventually(t, "both daemons settled", func() bool {
		sum := serverChecksum(t, srv)
		return tr.armed("alice", sum) && tr.armed("bob", sum) || tr.armed("alice", api.EmptyRepoChecksum) && tr.armed("bob", api.EmptyRepoChecksum)
	})
	openBob := tr.closeGate("bob")
	defer openBob()

	write(t, dirA, "deploys.md", note)
	// The server must hold the whole note: a scan may catch the file
	// between its truncation and its write, and push that first.
	pushed := api.RepoChecksum(map[string]string{"deploys.md": api.EntryChecksum(note)}, nil)
	eventually(t, "alice pushed the note and waits on the new checksum", func() bool {
		return serverChecksum(t, srv) == pushed && tr.armed("alice", pushed)
	})
	if got := hashes.Load(); got < 1 || got > 2 {
		t.Errorf("a saved note was hashed %d times on its way to the server, want 1 or 2 (the push hashes it)", got)
	}
	alice.stop(t) // its later scans are not this note's way in
	hashes.Store(0)

	openBob()
	eventually(t, "bob pulled the note and took its write for his own", func() bool {
		return fileIs(filepath.Join(dirB, "deploys.md"), note)() && logB.count(msgOwnWrites) > 0
	})
	write(t, dirB, "other.md", "bob's own note\n")
	eventually(t, "bob pushed his next save", func() bool {
		sum := serverChecksum(t, srv)
		return tr.armed("bob", sum) && fileIs(filepath.Join(dirB, "other.md"), "bob's own note\n")() && serverHas(t, srv, "other.md")
	})
	if got := hashes.Load(); got < 1 || got > 2 {
		t.Errorf("a pulled note was hashed %d times by the pull, the daemon and the next push, want 1 or 2 (the pull hashes it)", got)
	}
}

// serverHas reports whether the server holds key.
func serverHas(t *testing.T, srv *servertest.Server, key string) bool {
	t.Helper()
	snap, err := srv.Store.Snapshot(context.Background(), slug, false)
	if err != nil {
		return false
	}
	_, ok := snap.EntryChecksums[key]
	return ok
}
