//go:build unix

package login

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// envHoldLock makes the test binary a process that takes the refresh lock
// at the path it names, says "locked" on stdout, and holds the lock until
// its stdin is closed.
const envHoldLock = "TEAMMEMD_TEST_HOLD_LOCK"

func TestMain(m *testing.M) {
	if path := os.Getenv(envHoldLock); path != "" {
		os.Exit(holdLock(path))
	}
	os.Exit(m.Run())
}

// holdLock is the body of the lock-holding process.
func holdLock(path string) int {
	release, err := lockRefresh(context.Background(), path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer release()
	fmt.Println("locked")
	_, _ = io.Copy(io.Discard, os.Stdin)
	return 0
}

// startHolder starts a process that holds the refresh lock at path until
// the test ends or it is killed, and returns it once it holds the lock.
func startHolder(t *testing.T, path string) *os.Process {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), envHoldLock+"="+path)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if line != "locked\n" {
		t.Fatalf("lock holder said %q, %v, want locked", line, err)
	}
	return cmd.Process
}

// expiredLogin keeps a login that must be refreshed before it is used, at
// a token endpoint nothing answers, and returns its store and server.
func expiredLogin(t *testing.T) (Store, string) {
	t.Helper()
	s := Store{Dir: t.TempDir()}
	const server = "https://mem.acme.com"
	rec := Record{Server: server, IDToken: "id", RefreshToken: "rt", TokenEndpoint: "http://127.0.0.1:1/token",
		Expiry: time.Date(1999, 1, 1, 0, 0, 0, 0, time.UTC)}
	if err := s.Save(rec); err != nil {
		t.Fatal(err)
	}
	return s, server
}

// TestRefreshLockHeldElsewhere: while another process holds the refresh
// lock, a refresh gives up after lockWait with an error naming that
// process, instead of waiting for ever.
func TestRefreshLockHeldElsewhere(t *testing.T) {
	s, server := expiredLogin(t)
	path, _ := s.Path(server)
	pid := startHolder(t, path+".lock").Pid
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	synctest.Test(t, func(t *testing.T) {
		src, err := NewSource(s, server, nil, time.Now)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		_, err = src.TokenContext(context.Background())
		waited := time.Since(start)
		want := fmt.Sprintf("pid %d on %s", pid, host)
		if !errors.Is(err, ErrRefreshLocked) || !strings.Contains(fmt.Sprint(err), want) {
			t.Errorf("TokenContext() error = %v, want ErrRefreshLocked naming %q", err, want)
		}
		if waited < lockWait || waited > lockWait+lockPoll {
			t.Errorf("TokenContext() gave up after %v, want %v", waited, lockWait)
		}
	})
}

// TestRefreshLockWaitCancelled: ending the caller's context ends the wait
// for a lock another process holds, at once.
func TestRefreshLockWaitCancelled(t *testing.T) {
	s, server := expiredLogin(t)
	path, _ := s.Path(server)
	startHolder(t, path+".lock")
	synctest.Test(t, func(t *testing.T) {
		src, err := NewSource(s, server, nil, time.Now)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		const after = 3 * time.Second
		time.AfterFunc(after, cancel)
		start := time.Now()
		_, err = src.TokenContext(ctx)
		if waited := time.Since(start); !errors.Is(err, context.Canceled) || waited != after {
			t.Errorf("TokenContext(cancelled after %v) = %v after %v, want context.Canceled at once", after, err, waited)
		}
	})
}

// TestRefreshLockOfEndedProcess: a holder that ended without letting go
// (killed) holds nothing: the lock is taken at once, and until then the
// lock file's record of it is not taken for the holder.
func TestRefreshLockOfEndedProcess(t *testing.T) {
	path := filepath.Join(t.TempDir(), "login.json.lock")
	p := startHolder(t, path)
	if err := p.Kill(); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Wait(); err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	want := fmt.Sprintf("another process (the lock file still names pid %d on %s, which has ended)", p.Pid, host)
	if got := lockHolder(path); got != want {
		t.Errorf("lockHolder(killed holder's lock) = %q, want %q", got, want)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // no waiting: the first try must take it
	release, err := lockRefresh(ctx, path)
	if err != nil {
		t.Fatalf("lockRefresh(killed holder's lock) error = %v, want the lock at once", err)
	}
	if got, want := lockHolder(path), fmt.Sprintf("pid %d on %s (lock taken ", os.Getpid(), host); !strings.HasPrefix(got, want) {
		t.Errorf("lockHolder(own lock) = %q, want it to begin %q", got, want)
	}
	release()
	if data, err := os.ReadFile(path); err != nil || len(data) != 0 {
		t.Errorf("lock file after release = %q, %v, want it empty", data, err)
	}
}

func TestHolderDescribe(t *testing.T) {
	since := time.Date(2025, 3, 4, 5, 6, 7, 0, time.Local)
	alive := func(pid int) bool { return pid == 42 }
	tests := []struct {
		h    holder
		want string
	}{
		{holder{PID: 42, Host: "vm", Since: since}, "pid 42 on vm (lock taken 2025-03-04 05:06:07)"},
		{holder{PID: 7, Host: "vm", Since: since}, "another process (the lock file still names pid 7 on vm, which has ended)"},
		{holder{PID: 7, Host: "nfs-peer", Since: since}, "pid 7 on nfs-peer (lock taken 2025-03-04 05:06:07)"},
	}
	for _, tt := range tests {
		if got := tt.h.describe("vm", alive); got != tt.want {
			t.Errorf("%+v.describe(vm) = %q, want %q", tt.h, got, tt.want)
		}
	}
}

func TestLockHolderUnrecorded(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{"empty": "", "garbage": "{pid", "no pid": `{"host":"vm"}`} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		if got := lockHolder(path); got != "another process" {
			t.Errorf("lockHolder(%s lock file) = %q, want another process", name, got)
		}
	}
	if got := lockHolder(filepath.Join(dir, "missing")); got != "another process" {
		t.Errorf("lockHolder(no lock file) = %q, want another process", got)
	}
}
