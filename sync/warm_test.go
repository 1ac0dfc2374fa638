package memsync

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/servertest"
	"github.com/teammemd/teammemd/sync/fsio"
	"github.com/teammemd/teammemd/sync/internal/fault"
	"github.com/teammemd/teammemd/sync/internal/hashcount"
)

// warmPeer is a peer with the real scanner that synced once, and the time
// its new notes are dated: long enough ago to be past any racy window.
func warmPeer(t *testing.T) (*peer, *servertest.Server, time.Time) {
	t.Helper()
	srv := servertest.Start(t)
	p := newPeer(t, srv.URL, srv.Token, realScanner(t))
	p.sync(t)
	return p, srv, time.Now().Add(-time.Minute)
}

// writeOld writes key and dates it at.
func writeOld(t *testing.T, p *peer, key, value string, at time.Time) {
	t.Helper()
	p.write(t, key, value)
	setMtime(t, p, key, at)
}

// warmKeys returns the keys Warm kept, and how many with their content.
func warmKeys(e *Engine) ([]string, int) {
	e.warm.mu.Lock()
	defer e.warm.mu.Unlock()
	var keys []string
	withData := 0
	for k, f := range e.warm.files {
		keys = append(keys, k)
		if f.data != nil {
			withData++
		}
	}
	slices.Sort(keys)
	return keys, withData
}

// TestWarmSparesThePush: the notes read ahead are hashed once, by Warm,
// and the push reads none of them again: it sends them while every read
// of theirs would fail, and the one with a secret is blocked all the
// same.
func TestWarmSparesThePush(t *testing.T) {
	p, srv, old := warmPeer(t)
	notes := map[string]string{"a.md": "alpha\n", "sub/b.md": "beta\n", "c.md": "gamma\n"}
	for k, v := range notes {
		writeOld(t, p, k, v, old)
	}
	secret := "aws_access_key_id = AKIAZ3MSJV4WWNKWW5FX\n"
	writeOld(t, p, "key.md", secret, old)
	hashes := hashcount.Count(t, nil)
	p.eng.Warm(context.Background(), []string{"a.md", "sub/b.md", "c.md", "key.md", "sub"})
	if got := hashes.Load(); got != 4 {
		t.Fatalf("Warm hashed %d values, want 4", got)
	}
	var paths []string
	for k := range notes {
		paths = append(paths, filepath.Join(p.dir, filepath.FromSlash(k)))
	}
	restore := fault.DenyRead(append(paths, filepath.Join(p.dir, "key.md"))...)
	defer restore()
	hashes.Store(0)
	rep, err := p.eng.Push(context.Background())
	if err != nil {
		t.Fatalf("Push() error = %v", err)
	}
	if got := hashes.Load(); got != 0 {
		t.Errorf("Push() hashed %d values after Warm, want 0", got)
	}
	got := serverEntries(t, srv)
	for k, v := range notes {
		if got[k] != v {
			t.Errorf("server entry %s = %q, want %q", k, got[k], v)
		}
	}
	if _, ok := got["key.md"]; ok || len(rep.Blocked) != 1 || rep.Blocked[0].Key != "key.md" {
		t.Errorf("Push() blocked %v, server holds key.md: %v; want key.md blocked", rep.Blocked, ok)
	}
	if keys, _ := warmKeys(p.eng); len(keys) != 0 {
		t.Errorf("after the push Warm still holds %v, want nothing", keys)
	}
}

// TestWarmTrustsOnlyWhatItSaw: a file changed after Warm read it is sent
// as it is now; what Warm must not trust is not kept: a file modified
// within the racy window, one as the last run indexed it, a file that
// does not sync, a symlink, a directory, a missing path.
func TestWarmTrustsOnlyWhatItSaw(t *testing.T) {
	p, srv, old := warmPeer(t)
	writeOld(t, p, "synced.md", "synced\n", old)
	p.sync(t)
	writeOld(t, p, "edited.md", "first\n", old)
	writeOld(t, p, "notes.json", "{}\n", old)
	writeOld(t, p, ".hidden.md", "hidden\n", old)
	must(t, os.Symlink("edited.md", filepath.Join(p.dir, "link.md")))
	p.write(t, "fresh.md", "just saved\n")
	p.eng.Warm(context.Background(), []string{"synced.md", "edited.md", "notes.json", ".hidden.md", "link.md", "fresh.md", "gone.md", "sub"})
	if keys, _ := warmKeys(p.eng); !slices.Equal(keys, []string{"edited.md"}) {
		t.Errorf("Warm kept %v, want [edited.md]", keys)
	}
	writeOld(t, p, "edited.md", "later\n", old.Add(time.Second)) // same size, another mtime
	if _, err := p.eng.Push(context.Background()); err != nil {
		t.Fatalf("Push() error = %v", err)
	}
	if got := serverEntries(t, srv)["edited.md"]; got != "later\n" {
		t.Errorf("server entry edited.md = %q, want the content saved after Warm", got)
	}
}

// TestWarmBounds: past the byte bound Warm keeps a file's hash, not its
// content, and the push reads that file itself.
func TestWarmBounds(t *testing.T) {
	p, srv, old := warmPeer(t)
	p.eng.warm.maxBytes = 10
	writeOld(t, p, "a.md", "12345678\n", old)
	writeOld(t, p, "b.md", "abcdefgh\n", old)
	p.eng.Warm(context.Background(), []string{"a.md", "b.md"})
	if keys, withData := warmKeys(p.eng); len(keys) != 2 || withData != 1 {
		t.Errorf("Warm kept %v, %d with content; want both, one with content", keys, withData)
	}
	p.sync(t)
	got := serverEntries(t, srv)
	if got["a.md"] != "12345678\n" || got["b.md"] != "abcdefgh\n" {
		t.Errorf("server entries = %q, want both notes", got)
	}
}

// TestWarmStops: a cancelled Warm reads nothing.
func TestWarmStops(t *testing.T) {
	p, _, old := warmPeer(t)
	var keys []string
	for i := range 50 {
		k := fmt.Sprintf("n%02d.md", i)
		writeOld(t, p, k, "note\n", old)
		keys = append(keys, k)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	p.eng.Warm(ctx, keys)
	if got, _ := warmKeys(p.eng); len(got) != 0 {
		t.Errorf("a cancelled Warm kept %v, want nothing", got)
	}
}

// TestWarmSettlesAPullsWrites: a note a pull wrote is indexed without its
// hash trusted; read ahead once past the racy window, it is hashed there,
// and the next run trusts it by its stat without hashing it again.
func TestWarmSettlesAPullsWrites(t *testing.T) {
	srv := servertest.Start(t)
	a := newPeer(t, srv.URL, srv.Token, realScanner(t))
	b := newPeer(t, srv.URL, srv.Token, realScanner(t))
	const note = "from a teammate\n"
	a.write(t, "pulled.md", note)
	a.sync(t)
	b.sync(t)
	if e := b.eng.synced.Load().Index["pulled.md"]; !e.Racy {
		t.Fatalf("the pull's index entry = %+v, want it racy", e)
	}
	root, err := os.OpenRoot(b.dir)
	must(t, err)
	defer root.Close()
	time.Sleep(fsio.RacyWindow(root) + 10*time.Millisecond)
	hashes := hashcount.Count(t, func(v []byte) bool { return string(v) == note })
	b.eng.Warm(context.Background(), []string{"pulled.md"})
	if keys, withData := warmKeys(b.eng); !slices.Equal(keys, []string{"pulled.md"}) || withData != 0 || hashes.Load() != 1 {
		t.Fatalf("Warm kept %v (%d with content) after %d hashes, want pulled.md without content after 1", keys, withData, hashes.Load())
	}
	hashes.Store(0)
	b.sync(t)
	if e := b.eng.synced.Load().Index["pulled.md"]; e.Racy || hashes.Load() != 0 {
		t.Errorf("after the read ahead the run hashed the note %d times and indexed it %+v; want no hash and a trusted entry", hashes.Load(), e)
	}
}

// TestWarmSettledWritesNeedNoLook: once read ahead past the racy window, a
// pull's writes are trusted as any file the watcher named no change of:
// the next push looks only at what the watcher named, so an edit it was
// not told of waits for the rescan, which sends it, as for any other file
// (TestPushScansOnlyNamedPaths). Left racy, every one of them would be
// looked at again.
func TestWarmSettledWritesNeedNoLook(t *testing.T) {
	srv := servertest.Start(t)
	a := newPeer(t, srv.URL, srv.Token, nil)
	b := newPeer(t, srv.URL, srv.Token, nil)
	var keys []string
	for i := range 10 {
		k := fmt.Sprintf("n%d.md", i)
		a.write(t, k, "one")
		keys = append(keys, k)
	}
	a.sync(t)
	b.eng.NoteChanges(nil, true)
	b.sync(t)
	root, err := os.OpenRoot(b.dir)
	must(t, err)
	defer root.Close()
	time.Sleep(fsio.RacyWindow(root) + 10*time.Millisecond)
	b.eng.Warm(context.Background(), keys)

	b.write(t, "n3.md", "not named")
	backdate(t, b.dir, "n3.md")
	ctx := context.Background()
	b.eng.NoteChanges(nil, false)
	if rep, err := b.eng.Push(ctx); err != nil || len(rep.Pushed) != 0 {
		t.Fatalf("Push = pushed %v, %v; want nothing: no path named", rep.Pushed, err)
	}
	b.eng.NoteChanges(nil, true)
	if rep, err := b.eng.Push(ctx); err != nil || !slices.Equal(rep.Pushed, []string{"n3.md"}) {
		t.Fatalf("Push after a rescan = pushed %v, %v; want n3.md", rep.Pushed, err)
	}
}

// Warm prepares the copy of the saved state the next run takes, also
// with no file to read ahead, and leaves the state alone while a run
// holds the engine.
func TestWarmPreparesTheState(t *testing.T) {
	p, _, _ := warmPeer(t)
	p.eng.mu.Lock()
	p.eng.Warm(t.Context(), nil)
	p.eng.mu.Unlock()
	if p.eng.state.cache.spare != nil {
		t.Fatal("Warm changed the state cache while a run held the engine")
	}
	p.eng.Warm(t.Context(), nil)
	spare := p.eng.state.cache.spare
	if spare == nil {
		t.Fatal("Warm prepared no copy of the saved state")
	}
	if spare == p.eng.synced.Load() {
		t.Fatal("the prepared copy is the state other goroutines read")
	}
	p.write(t, "a.md", "alpha\n")
	p.sync(t)
	st := p.eng.synced.Load()
	if st != spare {
		t.Fatal("the run did not run on the prepared copy")
	}
	if st.Base["a.md"] == "" {
		t.Fatal("the run on the prepared copy did not save its sync of a.md")
	}
}

// WarmState makes the copy of the saved state the next run takes anew,
// also when one was made before, and leaves the state alone while a run
// holds the engine.
func TestWarmStateRenewsTheCopy(t *testing.T) {
	p, _, _ := warmPeer(t)
	p.eng.Warm(t.Context(), nil)
	old := p.eng.state.cache.spare
	if old == nil {
		t.Fatal("Warm prepared no copy of the saved state")
	}
	p.eng.mu.Lock()
	p.eng.WarmState()
	p.eng.mu.Unlock()
	if p.eng.state.cache.spare != old {
		t.Fatal("WarmState changed the state cache while a run held the engine")
	}
	p.eng.WarmState()
	spare := p.eng.state.cache.spare
	if spare == nil || spare == old || spare == p.eng.synced.Load() {
		t.Fatal("WarmState did not make a new copy of the saved state")
	}
	if !reflect.DeepEqual(spare, p.eng.synced.Load()) {
		t.Fatal("the new copy differs from the saved state")
	}
	p.write(t, "a.md", "alpha\n")
	p.sync(t)
	if st := p.eng.synced.Load(); st != spare || st.Base["a.md"] == "" {
		t.Fatal("the run did not run on, and save, the copy WarmState made")
	}
}
