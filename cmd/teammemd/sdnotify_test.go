package main

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/servertest"
)

// notifySocket listens on a unixgram socket in a temporary directory and
// points $NOTIFY_SOCKET at it.
func notifySocket(t *testing.T) *net.UnixConn {
	t.Helper()
	path := filepath.Join(t.TempDir(), "notify.sock")
	conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: path, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	t.Setenv("NOTIFY_SOCKET", path)
	return conn
}

// nextState reads one notification, waiting at most 30s.
func nextState(t *testing.T, conn *net.UnixConn) string {
	t.Helper()
	if err := conn.SetReadDeadline(time.Now().Add(30 * time.Second)); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4096)
	n, err := conn.Read(buf)
	if err != nil {
		t.Fatalf("read notification: %v", err)
	}
	return string(buf[:n])
}

func TestSdNotify(t *testing.T) {
	t.Setenv("NOTIFY_SOCKET", "")
	if err := sdNotify("READY=1"); err != nil {
		t.Errorf("sdNotify without NOTIFY_SOCKET = %v, want nil", err)
	}
	t.Setenv("NOTIFY_SOCKET", "relative.sock")
	if err := sdNotify("READY=1"); err == nil {
		t.Error("sdNotify(relative NOTIFY_SOCKET) = nil, want an error")
	}
	t.Setenv("NOTIFY_SOCKET", filepath.Join(t.TempDir(), "absent.sock"))
	if err := sdNotify("READY=1"); err == nil {
		t.Error("sdNotify(no listener) = nil, want an error")
	}
	conn := notifySocket(t)
	for _, state := range []string{"READY=1", "STOPPING=1"} {
		if err := sdNotify(state); err != nil {
			t.Fatalf("sdNotify(%q) = %v", state, err)
		}
		if got := nextState(t, conn); got != state {
			t.Errorf("notification = %q, want %q", got, state)
		}
	}
}

// teammemd run tells systemd when it is ready, around a reload, and when it
// stops.
func TestRunNotifiesSystemd(t *testing.T) {
	srv := servertest.Start(t)
	conn := notifySocket(t)
	t.Setenv("TEAMMEMD_TOKEN", srv.Token)
	t.Setenv("TEAMMEMD_CONFIG", "")
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	dir := t.TempDir()
	sock := filepath.Join(t.TempDir(), "ctl.sock")
	args := []string{"--dir", dir, "--repo", "acme/app", "--server", srv.URL,
		"--state-dir", t.TempDir(), "--socket", sock}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stderr bytes.Buffer
	done := make(chan error, 1)
	go func() { done <- runDaemon(ctx, args, &bytes.Buffer{}, &stderr) }()

	if got := nextState(t, conn); got != "READY=1" {
		t.Fatalf("first notification = %q, want READY=1", got)
	}
	if _, err := os.Stat(sock); err != nil {
		t.Errorf("control socket at READY=1: %v, want it listening", err)
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"RELOADING=1", "READY=1"} {
		if got := nextState(t, conn); got != want {
			t.Errorf("notification after SIGHUP = %q, want %q", got, want)
		}
	}
	cancel()
	if got := nextState(t, conn); got != "STOPPING=1" {
		t.Errorf("notification at shutdown = %q, want STOPPING=1", got)
	}
	if err := <-done; err != nil {
		t.Errorf("runDaemon() = %v, want nil\n%s", err, stderr.String())
	}
}

// TestExtendStart: while the store opens, the service manager is asked
// again and again for more time to start; once stop returns, never again.
func TestExtendStart(t *testing.T) {
	conn := notifySocket(t)
	stop := extendStart(10*time.Millisecond, slog.New(slog.DiscardHandler))
	want := "EXTEND_TIMEOUT_USEC=30000000"
	for range 3 {
		if got := nextState(t, conn); got != want {
			stop()
			t.Fatalf("notification = %q, want %q", got, want)
		}
	}
	stop()
	buf := make([]byte, 4096)
	for { // the ones sent before stop returned
		if err := conn.SetReadDeadline(time.Now().Add(50 * time.Millisecond)); err != nil {
			t.Fatal(err)
		}
		if _, err := conn.Read(buf); err != nil {
			break
		}
	}
	time.Sleep(100 * time.Millisecond) // ten intervals
	if err := conn.SetReadDeadline(time.Now()); err != nil {
		t.Fatal(err)
	}
	if n, err := conn.Read(buf); err == nil {
		t.Errorf("notification %q after stop", buf[:n])
	}
}
