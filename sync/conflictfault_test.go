package memsync

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/teammemd/teammemd/server/servertest"
)

// conflictFiles lists every file under p's conflict directory.
func conflictFiles(t *testing.T, p *peer) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(filepath.Join(p.state, "conflicts"), func(path string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err == nil && !d.IsDir() {
			out = append(out, path)
		}
		return err
	})
	must(t, err)
	return out
}

// editedOnBothSides syncs five notes to a and b, then changes them on a
// (pushed) and on b (not pushed), so b's next pull needs five conflict
// copies.
func editedOnBothSides(t *testing.T, srv *servertest.Server) (a, b *peer, keys []string) {
	a = newPeer(t, srv.URL, srv.Token, nil)
	b = newPeer(t, srv.URL, srv.Token, nil)
	keys = []string{"k1.md", "k2.md", "k3.md", "k4.md", "sub/k5.md"}
	for _, k := range keys {
		a.write(t, k, "v1\n")
	}
	a.sync(t)
	b.sync(t)
	for _, k := range keys {
		a.write(t, k, "teammate\n")
		b.write(t, k, "local edit of "+k+"\n")
	}
	a.sync(t)
	return a, b, keys
}

func TestFailedConflictCopyLeavesNothing(t *testing.T) {
	srv := servertest.Start(t)
	_, b, keys := editedOnBothSides(t, srv)
	setHook(t, &testHookConflictWrite, func() error { return syscall.ENOSPC })
	if _, err := b.eng.Pull(context.Background()); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("Pull with the conflict directory full = %v, want ENOSPC", err)
	}
	if got := conflictFiles(t, b); len(got) != 0 {
		t.Errorf("conflict directory holds %v after failed writes, want nothing", got)
	}
	for _, k := range keys {
		if got, want := b.read(t, k), "local edit of "+k+"\n"; got != want {
			t.Errorf("%s = %q after a failed conflict copy, want the local edit untouched", k, got)
		}
	}
	testHookConflictWrite = nil
	rep, err := b.eng.Pull(context.Background())
	if err != nil {
		t.Fatalf("Pull once the disk has room: %v", err)
	}
	if len(rep.Conflicts) != len(keys) || len(conflictFiles(t, b)) != len(keys) {
		t.Errorf("next Pull kept %d conflict copies (%d files), want %d", len(rep.Conflicts), len(conflictFiles(t, b)), len(keys))
	}
	for _, k := range keys {
		if got := b.read(t, k); got != "teammate\n" {
			t.Errorf("%s = %q after the next pull, want the teammate's version", k, got)
		}
	}
}
