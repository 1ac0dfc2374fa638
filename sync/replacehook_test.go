//go:build testhooks

package memsync

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/servertest"
)

// keptSomewhere reports whether content is key's file in p's team dir or
// one of the conflict copies rep lists.
func keptSomewhere(t *testing.T, p *peer, rep Report, key, content string) bool {
	t.Helper()
	if p.read(t, key) == content {
		return true
	}
	for _, c := range rep.Conflicts {
		if data, err := os.ReadFile(c.Path); err == nil && string(data) == content && c.Key == key {
			return true
		}
	}
	return false
}

// setHook sets a test seam for the rest of the test.
func setHook[F any](t *testing.T, hook *F, f F) {
	t.Helper()
	*hook = f
	t.Cleanup(func() {
		var zero F
		*hook = zero
	})
}

// onceFor returns a hook that runs act the first time it sees key.
func onceFor(key string, act func()) func(string) {
	var done atomic.Bool
	return func(k string) {
		if k == key && done.CompareAndSwap(false, true) {
			act()
		}
	}
}

func TestSaveBetweenCheckAndReplaceIsKept(t *testing.T) {
	for _, style := range saveStyles {
		t.Run(style.name, func(t *testing.T) {
			srv := servertest.Start(t)
			a := newPeer(t, srv.URL, srv.Token, nil)
			b := newPeer(t, srv.URL, srv.Token, nil)
			a.write(t, "k.md", "v1\n")
			a.sync(t)
			b.sync(t)
			a.write(t, "k.md", "teammate\n")
			a.sync(t)
			path := filepath.Join(b.dir, "k.md")
			setHook(t, &testHookBeforeReplace, onceFor("k.md", func() { style.save(t, path, "user save\n") }))
			rep, err := b.eng.Pull(context.Background())
			if err != nil {
				t.Fatalf("Pull: %v", err)
			}
			if !keptSomewhere(t, b, rep, "k.md", "user save\n") {
				t.Errorf("save during the pull's replace: k.md = %q, conflicts %+v; want the save in one of them", b.read(t, "k.md"), rep.Conflicts)
			}
			if got := b.read(t, "k.md"); got != "teammate\n" && got != "user save\n" {
				t.Errorf("k.md = %q, want the teammate's version or the save", got)
			}
		})
	}
}

func TestSaveBetweenCheckAndDeleteIsKept(t *testing.T) {
	for _, style := range saveStyles {
		t.Run(style.name, func(t *testing.T) {
			srv := servertest.Start(t)
			a := newPeer(t, srv.URL, srv.Token, nil)
			b := newPeer(t, srv.URL, srv.Token, nil)
			for _, k := range []string{"k.md", "x.md", "y.md"} {
				a.write(t, k, k+" v1\n")
			}
			a.sync(t)
			b.sync(t)
			must(t, os.Remove(filepath.Join(a.dir, "k.md")))
			a.sync(t)
			path := filepath.Join(b.dir, "k.md")
			setHook(t, &testHookBeforeReplace, onceFor("k.md", func() { style.save(t, path, "user save\n") }))
			rep, err := b.eng.Pull(context.Background())
			if err != nil {
				t.Fatalf("Pull: %v", err)
			}
			if !keptSomewhere(t, b, rep, "k.md", "user save\n") {
				t.Errorf("save during the pull's delete: k.md = %q, conflicts %+v; want the save in one of them", b.read(t, "k.md"), rep.Conflicts)
			}
			for _, k := range rep.Deleted {
				if k == "k.md" && b.read(t, "k.md") != "<missing>" {
					t.Errorf("Deleted lists k.md, but it is on disk")
				}
			}
		})
	}
}

// TestSaveBeforePinIsNotPinned: a save between a pull's write and its stat
// is not reported as the pull's write, nor indexed as its content; the
// next push sends it.
func TestSaveBeforePinIsNotPinned(t *testing.T) {
	srv := servertest.Start(t)
	a := newPeer(t, srv.URL, srv.Token, nil)
	b := newPeer(t, srv.URL, srv.Token, nil)
	setHook(t, &testHookAfterReplace, onceFor("n.md", func() { b.write(t, "n.md", "saved at once, longer\n") }))
	rep := pulledNote(t, a, b, "n.md", "pulled\n")
	if id, ok := rep.Written["n.md"]; ok {
		t.Errorf("Report.Written[n.md] = %+v for a file saved before the stat, want none", id)
	}
	if e, ok := savedState(t, b).Index["n.md"]; ok && e.Hash == api.EntryChecksum("pulled\n") {
		t.Errorf("index of n.md = %+v, the pulled content's, want none", e)
	}
	if _, err := b.eng.Push(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := serverEntries(t, srv)["n.md"]; got != "saved at once, longer\n" {
		t.Errorf("server holds n.md = %q, want the save", got)
	}
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
