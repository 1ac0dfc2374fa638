package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/teammemd/teammemd/scan/scantest"
	"github.com/teammemd/teammemd/sync/daemon"
)

// recorder is a loopback reverse proxy that keeps every request and
// response body that passes through it.
type recorder struct {
	mu     sync.Mutex
	bodies bytes.Buffer
}

func (r *recorder) keep(b []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.bodies.Write(b)
	r.bodies.WriteByte('\n')
}

func (r *recorder) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.bodies.String()
}

// startRecorder proxies to addr and returns the proxy's URL.
func startRecorder(t *testing.T, addr string) (*recorder, string) {
	t.Helper()
	rec := &recorder{}
	target := &url.URL{Scheme: "http", Host: addr}
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.ErrorLog = log.New(io.Discard, "", 0) // a change wait cut at shutdown
	proxy.ModifyResponse = func(resp *http.Response) error {
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return err
		}
		rec.keep(body)
		resp.Body = io.NopCloser(bytes.NewReader(body))
		return nil
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		rec.keep(body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return rec, srv.URL
}

// statusOf reads the daemon's status on sock; ok is false while it does
// not answer.
func statusOf(t *testing.T, sock string) (daemon.Status, bool) {
	t.Helper()
	var out bytes.Buffer
	if err := runStatus(context.Background(), []string{"--socket", sock, "--json"}, &out, io.Discard); err != nil {
		return daemon.Status{}, false
	}
	var st daemon.Status
	if err := json.Unmarshal(out.Bytes(), &st); err != nil {
		t.Fatalf("status --json printed %q: %v", out.String(), err)
	}
	return st, true
}

// A daemon and a server run with a canary secret in a team file and in a
// file name. Afterwards the canary appears in no log line, request or
// response body, status, state file, report of sync or scan.
func TestCanaryNeverLeaves(t *testing.T) {
	srv := startServe(t, "")
	rec, proxyURL := startRecorder(t, srv.addr)
	canary := scantest.AWSKey()
	dir, state, syncState, cacheDir := t.TempDir(), t.TempDir(), t.TempDir(), t.TempDir()
	writeTeamFile(t, dir, "MEMORY.md", "# team\n")
	writeTeamFile(t, dir, "deploy.md", scantest.AWSNote(canary))
	writeTeamFile(t, dir, "creds/"+canary+".md", "plain notes\n")
	t.Setenv("TEAMMEMD_TOKEN", srv.token)

	sock := filepath.Join(t.TempDir(), "ctl.sock")
	daemonLog := newLogRecord()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"run", "--dir", dir, "--repo", "acme/app", "--server", proxyURL,
			"--state-dir", state, "--socket", sock, "--log-format", "json"}, io.Discard, daemonLog)
	}()
	var st daemon.Status
	deadline := time.Now().Add(60 * time.Second)
	for {
		var ok bool
		st, ok = statusOf(t, sock)
		if ok && len(st.Repos) == 1 && st.Repos[0].LastPush != nil && st.Repos[0].State == daemon.StateHeld {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the daemon did not push within 60s; status %+v\n%s", st, daemonLog.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if held := heldBack(st.Repos[0].Blocked); len(held) != 2 {
		t.Errorf("status holds back %+v, want deploy.md and the file named by the canary", held)
	}
	status, _, _ := runCLI(t, "status", "--socket", sock)
	statusJSON, _, _ := runCLI(t, "status", "--socket", sock, "--json")
	syncOut, syncErr, code := runCLI(t, "sync", "--dir", dir, "--repo", "acme/app", "--server", proxyURL, "--state-dir", syncState)
	if code != 0 || strings.Count(syncOut, "\nblocked ") != 2 {
		t.Errorf("sync exit %d, printed %q (%s), want 0 and two files blocked", code, syncOut, syncErr)
	}
	scanOut, scanErr, code := runCLI(t, "scan", "--cache", filepath.Join(cacheDir, "cache.json"), dir)
	if code != 1 {
		t.Errorf("scan exit %d (%s), want 1: secrets found", code, scanErr)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("run after cancel = %v, want nil", err)
	}
	outputs := map[string]string{
		"the server's log": srv.log.String(), "the daemon's log": daemonLog.String(),
		"a request or response body": rec.String(), "status": status, "status --json": statusJSON,
		"sync's output": syncOut + syncErr, "scan's report": scanOut + scanErr,
		"the daemon's state directory": treeText(t, state), "sync's state directory": treeText(t, syncState),
		"scan's cache": treeText(t, cacheDir),
	}
	for what, text := range outputs {
		if leaks := scantest.Leaks(text, canary, 8); len(leaks) > 0 {
			t.Errorf("%s holds the canary: %v", what, leaks)
		}
	}
	if !strings.Contains(rec.String(), "MEMORY.md") {
		t.Errorf("no request or response named MEMORY.md: the daemon never synced")
	}
}

// While the server is away, the daemon's status lists the files not sent
// yet; a name holding a secret is listed redacted.
func TestStatusRedactsPendingNames(t *testing.T) {
	isolateConfig(t)
	canary := scantest.AWSKey()
	dir := t.TempDir()
	writeTeamFile(t, dir, "MEMORY.md", "# team\n")
	writeTeamFile(t, dir, canary+".md", "plain notes\n")
	t.Setenv("TEAMMEMD_TOKEN", "any")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	away := "http://" + ln.Addr().String()
	ln.Close()
	sock := filepath.Join(t.TempDir(), "ctl.sock")
	daemonLog := newLogRecord()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"run", "--dir", dir, "--repo", "acme/app", "--server", away,
			"--state-dir", t.TempDir(), "--socket", sock, "--log-format", "json"}, io.Discard, daemonLog)
	}()
	deadline := time.Now().Add(60 * time.Second)
	for {
		st, ok := statusOf(t, sock)
		if ok && len(st.Repos) == 1 && len(st.Repos[0].Pending) == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("status never listed two pending files; last %+v", st)
		}
		time.Sleep(50 * time.Millisecond)
	}
	status, _, _ := runCLI(t, "status", "--socket", sock)
	statusJSON, _, _ := runCLI(t, "status", "--socket", sock, "--json")
	cancel()
	<-done
	for what, text := range map[string]string{"status": status, "status --json": statusJSON, "the daemon's log": daemonLog.String()} {
		if leaks := scantest.Leaks(text, canary, 8); len(leaks) > 0 {
			t.Errorf("%s holds the canary: %v", what, leaks)
		}
	}
	if !strings.Contains(status, "MEMORY.md") {
		t.Errorf("status %q, want MEMORY.md pending", status)
	}
}
