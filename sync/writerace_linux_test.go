package memsync

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/servertest"
)

// An editor that has truncated the note and not yet written it when a pull
// judges the note must not leave a conflict copy of the half-saved file:
// the pull waits for the editor to close it and keeps the whole save.
func TestEditorMidSaveWhenPullJudgesNote(t *testing.T) {
	srv := servertest.Start(t)
	a := newPeer(t, srv.URL, srv.Token, nil)
	b := newPeer(t, srv.URL, srv.Token, nil)
	a.write(t, "k.md", "v1\n")
	a.sync(t)
	b.sync(t)
	a.write(t, "k.md", "teammate\n")
	a.sync(t)
	editor, err := os.OpenFile(filepath.Join(b.dir, "k.md"), os.O_WRONLY|os.O_TRUNC, 0)
	must(t, err)
	done := make(chan struct{})
	go func() {
		defer close(done)
		time.Sleep(100 * time.Millisecond) // the editor finishes its save while the pull waits
		editor.WriteString("user save\n")
		editor.Close()
	}()
	rep, err := b.eng.Pull(context.Background())
	<-done
	if err != nil {
		t.Fatalf("Pull: %v", err)
	}
	assertConflict(t, rep, "k.md", "user save\n")
	if got := b.read(t, "k.md"); got != "teammate\n" {
		t.Errorf("k.md = %q after the pull, want the teammate's version", got)
	}
}
