package memsync

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/servertest"
	"github.com/teammemd/teammemd/sync/fsio"
	"github.com/teammemd/teammemd/sync/internal/hashcount"
)

// countHashes counts the entry checksums of value the engine computes
// (not the server's, in the same process) until the test ends.
func countHashes(t *testing.T, value string) *atomic.Int64 {
	return hashcount.Count(t, func(v []byte) bool { return string(v) == value })
}

// savedState reads p's state as its engine last saved it.
func savedState(t *testing.T, p *peer) *State {
	t.Helper()
	st, ok, err := p.eng.state.loadReadOnly(testRepo, p.eng.client.Host())
	if err != nil || !ok {
		t.Fatalf("load state: %v (found %v)", err, ok)
	}
	return st
}

// TestPullHashesOnceAndIndexes: a pull hashes each value it writes once
// and records the file it wrote in the index, racy as a file hashed that
// soon after its write is, so the push after it hashes the file once to
// be sure and reads it for nothing else.
func TestPullHashesOnceAndIndexes(t *testing.T) {
	const value = "---\nname: deploys\ndescription: how we deploy\ntype: project\n---\nTuesdays.\n"
	srv := servertest.Start(t)
	a := newPeer(t, srv.URL, srv.Token, nil)
	b := newPeer(t, srv.URL, srv.Token, nil)
	b.sync(t)
	a.write(t, "deploys.md", value)
	a.sync(t)
	hashes := countHashes(t, value)

	if _, err := b.eng.Pull(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := hashes.Load(); got != 1 {
		t.Errorf("Pull hashed the pulled value %d times, want 1", got)
	}
	fi, err := os.Stat(filepath.Join(b.dir, "deploys.md"))
	if err != nil {
		t.Fatal(err)
	}
	want := IndexEntry{Size: fi.Size(), MtimeNs: fi.ModTime().UnixNano(), Inode: fsio.Inode(fi), Hash: api.EntryChecksum(value), Racy: true}
	if got := savedState(t, b).Index["deploys.md"]; got != want {
		t.Errorf("index of the pulled file = %+v, want %+v", got, want)
	}
	hashes.Store(0)
	if _, err := b.eng.Push(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := hashes.Load(); got != 1 {
		t.Errorf("the Push after the Pull hashed the pulled file %d times, want 1", got)
	}
}

// pulledNote has b pull a note a pushed and returns b's report.
func pulledNote(t *testing.T, a, b *peer, key, value string) Report {
	t.Helper()
	a.write(t, key, value)
	a.sync(t)
	rep, err := b.eng.Pull(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestPullReportsWrittenIDs: a pull reports each file it wrote as the
// file is right after, which Identify gives until the file changes.
func TestPullReportsWrittenIDs(t *testing.T) {
	srv := servertest.Start(t)
	a := newPeer(t, srv.URL, srv.Token, nil)
	b := newPeer(t, srv.URL, srv.Token, nil)
	rep := pulledNote(t, a, b, "sub/n.md", "a note\n")
	id, err := b.eng.Identify("sub/n.md")
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := rep.Written["sub/n.md"]; !ok || got != id {
		t.Errorf("Report.Written[sub/n.md] = %+v, %v, want %+v", got, ok, id)
	}
	if dir, err := b.eng.Identify("sub"); err != nil || !dir.Type.IsDir() {
		t.Errorf("Identify(sub) = %+v, %v, want a directory", dir, err)
	}
	if _, err := b.eng.Identify("missing.md"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Identify(missing.md) error = %v, want fs.ErrNotExist", err)
	}
}

// TestSaveInPullsTickIsPushed: a save right after a pull's write, of the
// same size and in the same clock tick (same mtime, same inode: in place)
// keeps every field of the pull's index entry, and is still pushed: the
// entry is racy, so the next scan hashes the file.
func TestSaveInPullsTickIsPushed(t *testing.T) {
	srv := servertest.Start(t)
	a := newPeer(t, srv.URL, srv.Token, nil)
	b := newPeer(t, srv.URL, srv.Token, nil)
	pulledNote(t, a, b, "n.md", "pulled\n")
	path := filepath.Join(b.dir, "n.md")
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	b.write(t, "n.md", "edited\n")
	if err := os.Chtimes(path, time.Time{}, fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	if after, err := os.Stat(path); err != nil || fsio.Inode(after) != fsio.Inode(fi) || after.Size() != fi.Size() {
		t.Fatalf("the save changed the fsio.Inode or the size (%v); the test needs both kept", err)
	}
	if _, err := b.eng.Push(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := serverEntries(t, srv)["n.md"]; got != "edited\n" {
		t.Errorf("server holds n.md = %q, want the save made in the pull's clock tick", got)
	}
}

// TestRacySaveIsPushed: a file hashed so soon after its save that a second
// save could keep its size and mtime is hashed again by the next scan, so
// such a second save is pushed. The first sync's clock reads the save's
// own mtime: a loaded machine may reach the scan later than the racy
// window, where no second save could keep the mtime.
func TestRacySaveIsPushed(t *testing.T) {
	srv := servertest.Start(t)
	p := newPeer(t, srv.URL, srv.Token, nil)
	p.write(t, "n.md", "first save\n")
	path := filepath.Join(p.dir, "n.md")
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	p.eng.now = fi.ModTime
	p.sync(t)
	p.eng.now = time.Now
	// A second save in the same clock tick: same size, same mtime.
	p.write(t, "n.md", "again save\n")
	if err := os.Chtimes(path, time.Time{}, fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	p.sync(t)
	if got := serverEntries(t, srv)["n.md"]; got != "again save\n" {
		t.Errorf("server holds n.md = %q, want the second save", got)
	}
}
