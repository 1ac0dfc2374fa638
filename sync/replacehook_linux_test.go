//go:build testhooks

package memsync

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/teammemd/teammemd/server/servertest"
)

// TestEditorHoldingFileOpenAcrossPull: an editor opens k.md to save it in
// place just before the pull swaps the teammate's version in, and writes
// only after the pull has looked at what it swapped out. The lease keeps
// the pull from judging the half-written file: the file stays aside until
// the editor closes it, and the next run keeps the whole save.
func TestEditorHoldingFileOpenAcrossPull(t *testing.T) {
	srv := servertest.Start(t)
	a := newPeer(t, srv.URL, srv.Token, nil)
	b := newPeer(t, srv.URL, srv.Token, nil)
	a.write(t, "k.md", "v1\n")
	a.write(t, "other.md", "other\n")
	a.sync(t)
	b.sync(t)
	a.write(t, "k.md", "teammate\n")
	a.sync(t)
	var editor *os.File
	setHook(t, &testHookBeforeReplace, onceFor("k.md", func() {
		f, err := os.OpenFile(filepath.Join(b.dir, "k.md"), os.O_WRONLY|os.O_TRUNC, 0)
		if err != nil {
			t.Errorf("editor open: %v", err)
			return
		}
		editor = f
		f.WriteString("user ")
	}))
	if _, err := b.eng.Pull(context.Background()); err != nil {
		t.Fatalf("Pull: %v", err)
	}
	if editor == nil {
		t.Fatal("the pull never reached k.md")
	}
	if got := b.read(t, "k.md"); got != "teammate\n" {
		t.Errorf("k.md = %q after the pull, want the teammate's version", got)
	}
	editor.WriteString("save\n")
	must(t, editor.Close())
	rep, err := b.eng.Sync(context.Background())
	if err != nil {
		t.Fatalf("Sync: %v", err)
	}
	assertConflict(t, rep, "k.md", "user save\n")
	entries, err := os.ReadDir(b.dir)
	must(t, err)
	if len(entries) != 2 {
		t.Errorf("team directory holds %d entries after the next run, want k.md and other.md", len(entries))
	}
}
