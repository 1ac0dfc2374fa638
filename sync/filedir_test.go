package memsync

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/server/servertest"
)

// toDirectory turns p's note1.md into a directory holding inner.md.
func toDirectory(content string) func(*testing.T, *peer) {
	return func(t *testing.T, p *peer) {
		must(t, os.Remove(filepath.Join(p.dir, "note1.md")))
		p.write(t, "note1.md/inner.md", content)
	}
}

// toFile turns p's note1.md directory back into a file.
func toFile(content string) func(*testing.T, *peer) {
	return func(t *testing.T, p *peer) {
		must(t, os.RemoveAll(filepath.Join(p.dir, "note1.md")))
		p.write(t, "note1.md", content)
	}
}

// TestFileBecomesDirectoryAndBack has each teammate in turn turn note1.md
// from a file into a directory and back; the other must follow every step.
func TestFileBecomesDirectoryAndBack(t *testing.T) {
	srv := servertest.Start(t)
	a := newPeer(t, srv.URL, srv.Token, nil)
	b := newPeer(t, srv.URL, srv.Token, nil)
	for _, k := range []string{"note1.md", "other.md", "third.md"} {
		a.write(t, k, k+" v1\n")
	}
	a.sync(t)
	b.sync(t)
	steps := []struct {
		name   string
		change func(*testing.T, *peer)
		want   map[string]string
	}{
		{"file to directory", toDirectory("inner v1\n"), map[string]string{"note1.md/inner.md": "inner v1\n"}},
		{"directory to file", toFile("file v2\n"), map[string]string{"note1.md": "file v2\n"}},
		{"file to directory again", toDirectory("inner v3\n"), map[string]string{"note1.md/inner.md": "inner v3\n"}},
		{"and back again", toFile("file v4\n"), map[string]string{"note1.md": "file v4\n"}},
	}
	peers := []*peer{a, b}
	for i, step := range steps {
		mover, follower := peers[i%2], peers[(i+1)%2]
		step.change(t, mover)
		if rep := mover.sync(t); len(rep.Pushed) != 1 || len(rep.SoftDeleted) != 1 {
			t.Fatalf("%s: the mover pushed %v and deleted %v, want one each", step.name, rep.Pushed, rep.SoftDeleted)
		}
		rep := follower.sync(t)
		if len(rep.Skipped) != 0 {
			t.Errorf("%s: the follower skipped %+v, want nothing", step.name, rep.Skipped)
		}
		for k, want := range step.want {
			if got := follower.read(t, k); got != want {
				t.Errorf("%s: the follower's %s = %q, want %q", step.name, k, got, want)
			}
		}
		if got := serverEntries(t, srv); len(got) != 3 {
			t.Errorf("%s: server holds %v, want 3 entries", step.name, keysOf(got))
		}
		if rep := follower.sync(t); !rep.NotModified || rep.PUTs != 0 || len(rep.Conflicts) != 0 {
			t.Errorf("%s: the follower's next Sync = %+v, want idle", step.name, rep)
		}
	}
}

// TestDirectoryInTheWayWithUserFiles: when a teammate turns a directory
// back into a file but the directory still holds a file of the user's, the
// pull leaves it, says why, and writes the file once the directory is
// empty, on the next pull.
func TestDirectoryInTheWayWithUserFiles(t *testing.T) {
	srv := servertest.Start(t)
	a := newPeer(t, srv.URL, srv.Token, nil)
	b := newPeer(t, srv.URL, srv.Token, nil)
	for _, k := range []string{"note1.md/inner.md", "other.md", "third.md"} {
		a.write(t, k, k+" v1\n")
	}
	a.sync(t)
	b.sync(t)
	b.write(t, "note1.md/drawing.png", "the user's, never synced")
	toFile("file v2\n")(t, a)
	a.sync(t)
	rep := b.sync(t)
	if !skippedFor(rep, "note1.md", "directory") {
		t.Errorf("Skipped = %+v, want note1.md skipped for the directory in the way", rep.Skipped)
	}
	if got := b.read(t, "note1.md/drawing.png"); got != "the user's, never synced" {
		t.Errorf("note1.md/drawing.png = %q, want it kept", got)
	}
	if got := b.read(t, "note1.md/inner.md"); got != "<missing>" {
		t.Errorf("note1.md/inner.md = %q, want it deleted as the teammate did", got)
	}
	must(t, os.Remove(filepath.Join(b.dir, "note1.md", "drawing.png")))
	rep = b.sync(t)
	if got := b.read(t, "note1.md"); got != "file v2\n" {
		t.Errorf("note1.md after the directory was emptied = %q, want the teammate's file", got)
	}
	for _, sk := range rep.Skipped {
		if strings.HasPrefix(sk.Key, "note1.md") {
			t.Errorf("Skipped %+v after the directory was emptied", sk)
		}
	}
}

// TestSymlinkInTheWay: a teammate's note whose name a local symlink holds
// is not written through or over the link; the pull says why, and writes
// the note on the next pull once the link is gone, though the repo has
// not changed since.
func TestSymlinkInTheWay(t *testing.T) {
	srv := servertest.Start(t)
	a := newPeer(t, srv.URL, srv.Token, nil)
	b := newPeer(t, srv.URL, srv.Token, nil)
	a.write(t, "other.md", "other v1\n")
	a.sync(t)
	b.sync(t)
	target := filepath.Join(t.TempDir(), "elsewhere.md")
	must(t, os.WriteFile(target, []byte("the user's, never synced\n"), 0o600))
	must(t, os.Symlink(target, filepath.Join(b.dir, "linked.md")))
	a.write(t, "linked.md", "the teammate's\n")
	a.sync(t)
	if rep := b.sync(t); !skippedFor(rep, "linked.md", "a symlink here is in the way of a teammate's note") {
		t.Errorf("Skipped = %+v, want linked.md skipped for the symlink in the way", rep.Skipped)
	}
	if data, err := os.ReadFile(target); err != nil || string(data) != "the user's, never synced\n" {
		t.Errorf("the link's target = %q, %v; want it untouched", data, err)
	}
	must(t, os.Remove(filepath.Join(b.dir, "linked.md")))
	rep := b.sync(t)
	if got := b.read(t, "linked.md"); got != "the teammate's\n" {
		t.Errorf("linked.md once the symlink is gone = %q, want the teammate's note", got)
	}
	if len(rep.Skipped) != 0 {
		t.Errorf("Skipped %+v once the symlink is gone", rep.Skipped)
	}
}

// TestLargeFileInTheWay: a local file too large to sync holds the name of
// a teammate's note; the note is not written over it, and the reason
// says what is in the way.
func TestLargeFileInTheWay(t *testing.T) {
	_, a, b, _ := notedPeers(t, 1)
	large := strings.Repeat("a line of the user's long note\n", 9000)
	b.write(t, "big.md", large)
	a.write(t, "big.md", "the teammate's\n")
	a.sync(t)
	rep := b.sync(t)
	if !skippedFor(rep, "big.md", "a file here that cannot sync (too large, or not a regular file) is in the way of a teammate's note") {
		t.Errorf("Skipped = %+v, want big.md skipped for the large file in the way", rep.Skipped)
	}
	if got := b.read(t, "big.md"); got != large {
		t.Errorf("big.md holds %d bytes, want the user's %d untouched", len(got), len(large))
	}
}

// TestEditedFileInTheWayOfDirectory: when a teammate turns note1.md into a
// directory while the user has an unpushed edit of the file, the edit
// stays and the pull says why it cannot write the teammate's inner file.
func TestEditedFileInTheWayOfDirectory(t *testing.T) {
	srv := servertest.Start(t)
	a := newPeer(t, srv.URL, srv.Token, nil)
	b := newPeer(t, srv.URL, srv.Token, nil)
	for _, k := range []string{"note1.md", "other.md", "third.md"} {
		a.write(t, k, k+" v1\n")
	}
	a.sync(t)
	b.sync(t)
	toDirectory("inner v1\n")(t, a)
	a.sync(t)
	b.write(t, "note1.md", "unpushed edit\n")
	rep, err := b.eng.Pull(context.Background())
	if err != nil {
		t.Fatalf("Pull: %v", err)
	}
	if got := b.read(t, "note1.md"); got != "unpushed edit\n" {
		t.Errorf("note1.md = %q, want the unpushed edit kept", got)
	}
	if !skippedFor(rep, "note1.md/inner.md", "local note1.md is a file here, not a directory") {
		t.Errorf("Skipped = %+v, want note1.md/inner.md skipped for the file in the way", rep.Skipped)
	}
}
