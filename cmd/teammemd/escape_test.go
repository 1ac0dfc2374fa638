package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/servertest"
	"github.com/teammemd/teammemd/sync/daemon"
)

// evil is text a hostile server or file name could carry: a terminal title
// change, a screen clear, a colour and a bidi override.
const evil = "\x1b]0;pwned\x07\x1b[2J\x1b[31mred\u202e"

// rawControl reports the first byte of out that would drive a terminal: a
// control character other than a newline, or a bidi override.
func rawControl(out string) (string, bool) {
	for i, r := range out {
		if (r < 0x20 && r != '\n') || r == 0x7f || (r >= 0x80 && r < 0xa0) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) {
			return out[max(0, i-30):min(len(out), i+30)], true
		}
	}
	return "", false
}

// A server's error message and a file's name reach the terminal escaped:
// visible as \x1b, never acted on.
func TestSyncEscapesServerTextAndFileNames(t *testing.T) {
	body, err := json.Marshal(api.NewError(http.StatusForbidden, api.CodeACLDenied, "no access "+evil).Envelope())
	if err != nil {
		t.Fatal(err)
	}
	hostile := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusForbidden)
		w.Write(body)
	}))
	defer hostile.Close()
	dir := t.TempDir()
	writeTeamFile(t, dir, "a"+evil+".md", "notes\n")
	t.Setenv("TEAMMEMD_TOKEN", "any")
	t.Setenv("TEAMMEMD_CONFIG", "")
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	stdout, stderr, code := runCLI(t, "sync", "--dir", dir, "--repo", "acme/app", "--server", hostile.URL, "--state-dir", t.TempDir())
	if code != exitAuth || !strings.Contains(stderr, `no access \x1b]0;pwned`) {
		t.Errorf("sync against a hostile server: exit %d, stderr %q; want %d (refused) and the message escaped", code, stderr, exitAuth)
	}
	srv := servertest.Start(t)
	t.Setenv("TEAMMEMD_TOKEN", srv.Token)
	out2, err2, code2 := runCLI(t, "sync", "--dir", dir, "--repo", "acme/app", "--server", srv.URL, "--state-dir", t.TempDir())
	if code2 != 0 || !strings.Contains(out2, `a\x1b]0;pwned`) {
		t.Errorf("sync of a file named with escapes: exit %d, stdout %q (%s); want 0 and the name escaped", code2, out2, err2)
	}
	for what, text := range map[string]string{"stdout": stdout + out2, "stderr": stderr + err2} {
		if at, bad := rawControl(text); bad {
			t.Errorf("sync wrote a raw control character to %s: %q", what, at)
		}
	}
}

// status prints what came from the server or from file names escaped.
func TestPrintStatusEscapes(t *testing.T) {
	now := time.Now()
	st := daemon.Status{PID: 1, Version: "v1", Started: now, Repos: []daemon.RepoStatus{{
		Repo: "acme/app", Dir: "/t", Server: "http://s",
		LastPull:   &daemon.OpResult{Time: now, Result: "failed: 403 denied: " + evil},
		Pending:    []string{"a" + evil + ".md"},
		Blocked:    []daemon.Blocked{{Path: "b" + evil + ".md", RuleID: "aws-access-token"}},
		Conflict:   []string{"/s/c" + evil + ".md"},
		Suppressed: "403 denied: " + evil,
		NextRetry:  &now,
		RetryCause: "503 " + evil,
	}}, Skipped: []daemon.Skipped{{Source: "/x" + evil, Reason: "bad " + evil}}}
	var b bytes.Buffer
	if err := printStatus(&b, st, now); err != nil {
		t.Fatal(err)
	}
	if at, bad := rawControl(b.String()); bad {
		t.Errorf("printStatus() wrote a raw control character: %q", at)
	}
	if n := strings.Count(b.String(), `\x1b`); n < 8 {
		t.Errorf("printStatus() shows %d escaped ESC, want each of the 8 fields escaped:\n%s", n, b.String())
	}
}

// scan's text report shows a file name's control characters escaped.
func TestScanReportEscapesFileNames(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "n"+evil+".md"), []byte("aws_access_key_id = "+"AKIA"+"Z7QW3RTY5UIO2PLK\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TEAMMEMD_CONFIG", "")
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	stdout, stderr, code := runCLI(t, "scan", "--cache", "", dir)
	if code != 1 || !strings.Contains(stdout, `n\x1b]0;pwned`) {
		t.Errorf("scan exit %d, stdout %q (%s), want 1 and the name escaped", code, stdout, stderr)
	}
	if at, bad := rawControl(stdout + stderr); bad {
		t.Errorf("scan wrote a raw control character: %q", at)
	}
}
