package daemon

import (
	"context"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A server URL that does not lead to a teammemd server stops the repo in a
// state that says so, with no retry scheduled, and logs it.
func TestWrongServerStopsRepo(t *testing.T) { bubble(t, testWrongServerStopsRepo) }

func testWrongServerStopsRepo(t *testing.T) {
	srv := startServer(t)
	fileServer := newLoopbackServer(t, http.FileServer(http.Dir(t.TempDir())))
	urls := map[string]string{"extra path": srv.URL + "/teammemd", "file server": fileServer}
	for name, url := range urls {
		dir := t.TempDir()
		write(t, dir, "MEMORY.md", "# team\n")
		logs := newLogRecorder()
		n := startNode(t, srv.Token, Plan{Specs: []Spec{{Repo: slug, Dir: dir, Server: url, Source: "test"}}}, func(o *Options) {
			o.Logger = slog.New(logs)
		})
		eventually(t, name+": repo stopped as wrong-server", func() bool {
			r, _ := n.repoStatus(dir)
			return r.State == "wrong-server"
		})
		r, _ := n.repoStatus(dir)
		if !strings.Contains(r.Halted, "does not answer as a teammemd server") || !strings.Contains(r.Halted, "check the server URL") {
			t.Errorf("%s: Halted = %q, want the reason and the hint", name, r.Halted)
		}
		if r.NextRetry != nil || r.Live {
			t.Errorf("%s: NextRetry = %v, Live = %v; want no retry and not live", name, r.NextRetry, r.Live)
		}
		if got := logs.count(msgWrongServer); got == 0 {
			t.Errorf("%s: %q logged %d times, want at least once", name, msgWrongServer, got)
		}
		n.stop(t)
	}
}

// A rejected token stops the repo as unauthorized with the server's
// message; a reload retries, and a new token in the token file resumes it.
func TestRejectedTokenStopsUntilTokenFileChanges(t *testing.T) {
	bubble(t, testRejectedTokenStopsUntilTokenFileChanges)
}

func testRejectedTokenStopsUntilTokenFileChanges(t *testing.T) {
	srv := startServer(t)
	dir := t.TempDir()
	write(t, dir, "MEMORY.md", "# team\n")
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte("tmd_wrong"), 0o600); err != nil {
		t.Fatal(err)
	}
	plan := Plan{Specs: []Spec{{Repo: slug, Dir: dir, Server: srv.URL, TokenFile: tokenFile, Source: "test"}}}
	n := startNode(t, "", plan, nil)
	eventually(t, "repo stopped as unauthorized", func() bool {
		r, _ := n.repoStatus(dir)
		return r.State == "unauthorized"
	})
	r, _ := n.repoStatus(dir)
	if !strings.Contains(r.Halted, "rejected the token") || !strings.Contains(r.Halted, "teammemd login") || r.NextRetry != nil {
		t.Errorf("Halted = %q, NextRetry = %v; want the rejection with its fix and no retry", r.Halted, r.NextRetry)
	}

	before := n.count.all.Load()
	if err := n.d.Reload(context.Background(), plan); err != nil {
		t.Fatal(err)
	}
	eventually(t, "a reload retries, and the token is rejected again", func() bool {
		r, _ := n.repoStatus(dir)
		return n.count.all.Load() > before && r.State == "unauthorized"
	})

	if err := os.WriteFile(tokenFile, []byte(srv.Token), 0o600); err != nil {
		t.Fatal(err)
	}
	eventually(t, "MEMORY.md pushed with the new token", func() bool {
		return serverEntries(t, srv)["MEMORY.md"] == "# team\n"
	})
	eventually(t, "repo idle and live", func() bool {
		r, _ := n.repoStatus(dir)
		return r.State == StateIdle && r.Live && r.Halted == ""
	})
}
