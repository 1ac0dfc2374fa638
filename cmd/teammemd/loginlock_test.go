//go:build unix

package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/teammemd/teammemd/internal/lockedbuf"
)

// TestSyncWhileAnotherRefreshes runs two "teammemd sync" processes on one
// expired login while the provider holds the first one's refresh: the
// second, waiting for the refresh lock the first holds, ends at SIGTERM
// as a clean stop, and the first syncs once the provider answers.
func TestSyncWhileAnotherRefreshes(t *testing.T) {
	w := newLoginWorld(t)
	w.clock.Advance(-2 * time.Hour) // the login's tokens: expired by the children's clock, good by the server's
	w.login(t, alice)
	held, release := make(chan struct{}), make(chan struct{})
	var holding, releasing sync.Once
	w.idp.OnRefresh = func() {
		holding.Do(func() { close(held) })
		<-release
	}
	free := func() { releasing.Do(func() { close(release) }) }
	t.Cleanup(free) // before the provider stops, which waits for its requests

	first := startSync(t, w, "a.md")
	select {
	case <-held:
	case <-time.After(30 * time.Second):
		t.Fatalf("the first sync did not refresh its login within 30s\n%s", first.stderr.String())
	}
	second := startSync(t, w, "b.md")
	if line := second.line(t); !strings.HasPrefix(line, "acme/app") {
		t.Fatalf("the second sync printed %q first, want the repo it syncs\n%s", line, second.stderr.String())
	}
	if err := second.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := second.exit(t); code != 0 {
		t.Errorf("the second sync, waiting for the first's refresh, exit %d at SIGTERM, want 0\n%s", code, second.stderr.String())
	}
	free()
	if code := first.exit(t); code != 0 || w.subjectOf(t, "a.md") != "oidc:alice@acme.com" {
		t.Errorf("the first sync exit %d, a.md written by %q, want 0 and alice\n%s", code, w.subjectOf(t, "a.md"), first.stderr.String())
	}
}

// syncProc is a "teammemd sync" child process.
type syncProc struct {
	cmd    *exec.Cmd
	stdout *bufio.Reader
	stderr *lockedbuf.Buffer
	done   chan struct{}
}

// startSync starts this test binary as "teammemd sync" of a team directory
// of its own holding file, on w's server.
func startSync(t *testing.T, w *loginWorld, file string) *syncProc {
	t.Helper()
	team := t.TempDir()
	if err := os.WriteFile(filepath.Join(team, file), []byte("# "+file+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	p := &syncProc{stderr: &lockedbuf.Buffer{}, done: make(chan struct{})}
	p.cmd = exec.Command(exe, "sync", "--dir", team, "--repo", "acme/app", "--server", w.srv.URL, "--state-dir", t.TempDir())
	p.cmd.Env = append(os.Environ(), demoEnv+"=1")
	p.cmd.Stderr = p.stderr
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p.stdout = bufio.NewReader(out)
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		_ = p.cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		_ = p.cmd.Process.Kill()
		<-p.done
	})
	return p
}

// line reads the process's next line of output, failing the test if none
// comes within 30 seconds.
func (p *syncProc) line(t *testing.T) string {
	t.Helper()
	got := make(chan string, 1)
	go func() {
		line, _ := p.stdout.ReadString('\n')
		got <- line
	}()
	select {
	case line := <-got:
		return line
	case <-time.After(30 * time.Second):
		t.Fatalf("no output within 30s\n%s", p.stderr.String())
		return ""
	}
}

// exit waits for the process to end and returns its exit status, failing
// the test if it is still running after 30 seconds.
func (p *syncProc) exit(t *testing.T) int {
	t.Helper()
	select {
	case <-p.done:
		return p.cmd.ProcessState.ExitCode()
	case <-time.After(30 * time.Second):
		t.Fatalf("%s still running after 30s\n%s", strings.Join(p.cmd.Args[1:], " "), p.stderr.String())
		return -1
	}
}
