package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/servertest"
)

// checkLogLines fails unless every line of stderr is a log record in format
// (json or text) and one of them is an error record mentioning want.
func checkLogLines(t *testing.T, what, format, stderr, want string) {
	t.Helper()
	found := false
	for line := range strings.Lines(stderr) {
		var level, msg string
		switch format {
		case "json":
			var rec map[string]any
			if err := json.Unmarshal([]byte(line), &rec); err != nil {
				t.Errorf("%s: stderr line %q is not JSON", what, line)
				continue
			}
			level, _ = rec["level"].(string)
			msg = fmt.Sprint(rec["err"])
		case "text":
			if !strings.HasPrefix(line, "time=") || !strings.Contains(line, " level=") {
				t.Errorf("%s: stderr line %q is not a text log record", what, line)
				continue
			}
			level, msg = "", line
			if strings.Contains(line, " level=ERROR ") {
				level = "ERROR"
			}
		}
		if level == "ERROR" && strings.Contains(msg, want) {
			found = true
		}
	}
	if !found {
		t.Errorf("%s: no error record mentioning %q in stderr:\n%s", what, want, stderr)
	}
}

// Start-up errors of run and serve are log records in the log's format, so
// a service's log is JSON from its first line.
func TestStartupErrorsAreLogRecords(t *testing.T) {
	isolateConfig(t)
	t.Setenv("TEAMMEMD_SERVER", "")
	t.Chdir(t.TempDir())
	bad := writeConfig(t, "[client]\nsever = \"x\"\n")
	sock := filepath.Join(t.TempDir(), "ctl.sock")
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	tests := []struct {
		format string
		args   []string
		want   string
	}{
		{"json", []string{"run", "--log-format", "json", "--socket", sock, "--config", bad}, "line 2: unknown key client.sever"},
		{"text", []string{"run", "--log-format", "text", "--socket", sock, "--config", bad}, "line 2: unknown key client.sever"},
		{"json", []string{"run", "--log-format", "json", "--socket", sock}, "nothing to sync"},
		{"json", []string{"run", "--log-format", "json", "--socket", sock, "--dir", "x"}, "--dir and --repo go together"},
		{"json", []string{"serve", "--config", bad}, "line 2: unknown key client.sever"},
		{"json", []string{"serve", "--data", t.TempDir(), "--listen", busy.Addr().String()}, "address already in use"},
	}
	for _, tt := range tests {
		_, stderr, code := runCLI(t, tt.args...)
		what := "teammemd " + strings.Join(tt.args, " ")
		if code == 0 {
			t.Errorf("%s: exit 0, want a failure", what)
		}
		checkLogLines(t, what, tt.format, stderr, tt.want)
	}
}

// A reload that fails keeps the running repos and shows in teammemd
// status, and fails doctor's daemon check, until a reload works.
func TestFailedReloadShowsInStatus(t *testing.T) {
	srv := servertest.Start(t)
	isolateConfig(t)
	t.Setenv("TEAMMEMD_TOKEN", srv.Token)
	t.Setenv("TEAMMEMD_SERVER", "")
	dir := t.TempDir()
	good := fmt.Sprintf("[client]\nserver = %q\n[[daemon.repo]]\ndir = %q\nrepo = \"acme/app\"\n", srv.URL, dir)
	cfg := writeConfig(t, good)
	ctx := context.Background()
	d := runInBackground(t, cfg, "watching team directory")
	sock := d.sock

	if err := os.WriteFile(cfg, []byte(good+"[daemon]\nrescan = 300\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	awaitStatus(t, sock, func(out string) bool {
		return strings.Contains(out, "last reload failed: ") && strings.Contains(out, "rescan = 300")
	})
	var doc bytes.Buffer
	_ = runDoctorWith(ctx, realDoctorEnv(), []string{"--config", cfg, "--socket", sock}, &doc, &bytes.Buffer{})
	if want := "FAIL  daemon         its last reload of the config failed: "; !strings.Contains(doc.String(), want) || !strings.Contains(doc.String(), "then reload the daemon") {
		t.Errorf("teammemd doctor after a failed reload has no line %q with the fix:\n%s", want, doc.String())
	}

	if err := os.WriteFile(cfg, []byte(good), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	awaitStatus(t, sock, func(out string) bool { return !strings.Contains(out, "reload failed") })
	d.stop(t)
}

// awaitStatus runs teammemd status until its output satisfies ok, for at
// most 30 s.
func awaitStatus(t *testing.T, sock string, ok func(string) bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		out, _, code := runCLI(t, "status", "--socket", sock)
		if code == 0 && ok(out) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("teammemd status after 30s (exit %d):\n%s", code, out)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
