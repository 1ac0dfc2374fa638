package proclab

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// Stop reports a process that ended badly on its own, and none that ended
// cleanly when told to or that Kill ended; the lab shows each command
// before it runs it.
func TestProcessEnds(t *testing.T) {
	lab, err := New(t.TempDir(), "/bin/sh")
	if err != nil {
		t.Fatal(err)
	}
	var shown [][]string
	lab.OnCommand = func(c Command) { shown = append(shown, append(c.Env, c.Args...)) }
	start := func(name, script string) *Process {
		t.Helper()
		p, err := lab.Start(name, []string{"LAB_TEST=" + name}, "-c", script)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	failed := start("failed", "exit 3")
	<-failed.Done()
	if err := failed.Stop(); err == nil || !strings.Contains(err.Error(), "exit status 3") {
		t.Errorf("Stop(exited 3) = %v, want exit status 3", err)
	}
	clean := start("clean", "trap 'kill $!; exit 0' TERM; echo ready; sleep 30 & wait")
	for i := 0; clean.LogTail() != "ready"; i++ {
		if i == 500 {
			t.Fatalf("the shell did not set its trap within 10s: %s", clean.LogTail())
		}
		if err := Pause(t.Context(), 20*time.Millisecond); err != nil {
			t.Fatal(err)
		}
	}
	if err := clean.Stop(); err != nil {
		t.Errorf("Stop(exits 0 on SIGTERM) = %v, want nil", err)
	}
	killed := start("killed", "sleep 30")
	if err := killed.Kill(); err != nil {
		t.Fatal(err)
	}
	if err := killed.Stop(); err != nil {
		t.Errorf("Stop(killed) = %v, want nil", err)
	}
	if err := lab.Close(); err == nil {
		t.Errorf("Close() = nil, want the process that exited 3")
	}
	want := [][]string{{"LAB_TEST=failed", "-c", "exit 3"}, {"LAB_TEST=clean", "-c", "trap 'kill $!; exit 0' TERM; echo ready; sleep 30 & wait"}, {"LAB_TEST=killed", "-c", "sleep 30"}}
	if !slices.EqualFunc(shown, want, slices.Equal) {
		t.Errorf("OnCommand saw %q, want %q", shown, want)
	}
}

func TestFreeLoopbackAddr(t *testing.T) {
	addr, err := freeLoopbackAddr()
	if err != nil || !strings.HasPrefix(addr, "127.0.0.1:") {
		t.Errorf("freeLoopbackAddr() = %q, %v, want 127.0.0.1:<port>", addr, err)
	}
}
