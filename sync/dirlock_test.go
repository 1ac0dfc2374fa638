//go:build unix

package memsync

import (
	"context"
	"errors"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/servertest"
)

// TestTeamDirLock: the lock is on the team directory itself, so a
// teammemd with another state directory (another daemon's) cannot sync
// the same directory at the same time; the sync waits, and gives up with
// ErrLocked when its context ends.
func TestTeamDirLock(t *testing.T) {
	srv := servertest.Start(t)
	p := newPeer(t, srv.URL, srv.Token, nil)
	p.write(t, "a.md", "a\n")
	p.sync(t)
	other, err := os.Open(p.dir)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := syscall.Flock(int(other.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	second := newTestEngine(t, srv.URL, srv.Token, p.dir, t.TempDir(), nil)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if _, err := second.Sync(ctx); !errors.Is(err, ErrLocked) {
		t.Fatalf("Sync with the team directory locked by another state's teammemd = %v, want ErrLocked", err)
	}
	if err := syscall.Flock(int(other.Fd()), syscall.LOCK_UN); err != nil {
		t.Fatal(err)
	}
	if _, err := second.Sync(context.Background()); err != nil {
		t.Errorf("Sync once the team directory is free = %v", err)
	}
}
