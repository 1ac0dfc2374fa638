package daemon

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/store"
	"github.com/teammemd/teammemd/watch"
)

const msgStopped = "stopped syncing repo"

func TestReloadAppliesWatcherTiming(t *testing.T) { bubble(t, testReloadAppliesWatcherTiming) }

func testReloadAppliesWatcherTiming(t *testing.T) {
	srv := startServer(t)
	spec := Spec{Repo: slug, Dir: t.TempDir(), Server: srv.URL, Source: "test"}
	logs := newLogRecorder()
	n := startNode(t, srv.Token, Plan{Specs: []Spec{spec}}, func(o *Options) { o.Logger = slog.New(logs) })
	eventually(t, "repo running", func() bool { _, ok := n.repoStatus(spec.Dir); return ok })
	ctx := context.Background()
	// The timing startNode runs with, spelled with the defaults filled in:
	// nothing to restart.
	same := watch.Options{Debounce: 100 * time.Millisecond, MaxWait: time.Second, Rescan: watch.DefaultRescan, Notify: notifyIn(t)}
	if err := n.d.Reload(ctx, Plan{Specs: []Spec{spec}, Watch: &same}); err != nil {
		t.Fatal(err)
	}
	if got := logs.count(msgStopped); got != 0 {
		t.Errorf("repos stopped by a reload with the same timing = %d, want 0", got)
	}
	// A longer debounce restarts the repo with it.
	slower := watch.Options{Debounce: 300 * time.Millisecond, MaxWait: 2 * time.Second, Notify: notifyIn(t)}
	if err := n.d.Reload(ctx, Plan{Specs: []Spec{spec}, Watch: &slower}); err != nil {
		t.Fatal(err)
	}
	if got := logs.count(msgStopped); got != 1 {
		t.Errorf("repos stopped by a reload with a new debounce = %d, want 1", got)
	}
	n.d.mu.Lock()
	var got watch.Options
	for _, run := range n.d.repos {
		got = run.watch
	}
	n.d.mu.Unlock()
	if !got.SameTiming(slower) {
		t.Errorf("running watcher timing = %+v, want %+v", got, slower)
	}
	write(t, spec.Dir, "after.md", "synced with the new timing\n")
	eventually(t, "after.md on the server", func() bool { return serverEntries(t, srv)["after.md"] == "synced with the new timing\n" })
}

func TestReloadAppliesServerAndToken(t *testing.T) { bubble(t, testReloadAppliesServerAndToken) }

func testReloadAppliesServerAndToken(t *testing.T) {
	first, second := startServer(t), startServer(t)
	tokenFile := filepath.Join(t.TempDir(), "token")
	readOnly := second.CreateToken(t, "reader", store.Grant{Pattern: "acme/**", Level: store.LevelRead})
	if err := os.WriteFile(tokenFile, []byte(first.Token), 0o600); err != nil {
		t.Fatal(err)
	}
	spec := Spec{Repo: slug, Dir: t.TempDir(), Server: first.URL, TokenFile: tokenFile, TokenID: "1", Source: "test"}
	n := startNode(t, "", Plan{Specs: []Spec{spec}}, nil)
	write(t, spec.Dir, "a.md", "a\n")
	eventually(t, "a.md on the first server", func() bool { return serverEntries(t, first)["a.md"] == "a\n" })

	// Move to the second server with a read-only token: pushes are refused.
	if err := os.WriteFile(tokenFile, []byte(readOnly), 0o600); err != nil {
		t.Fatal(err)
	}
	spec.Server, spec.TokenID = second.URL, "2"
	ctx := context.Background()
	if err := n.d.Reload(ctx, Plan{Specs: []Spec{spec}}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "pushes to the second server refused", func() bool {
		r, ok := n.repoStatus(spec.Dir)
		return ok && r.Server == second.URL && r.Suppressed != ""
	})
	// A new token in the same file restarts the repo with it.
	if err := os.WriteFile(tokenFile, []byte(second.Token), 0o600); err != nil {
		t.Fatal(err)
	}
	spec.TokenID = "3"
	if err := n.d.Reload(ctx, Plan{Specs: []Spec{spec}}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "a.md on the second server", func() bool { return serverEntries(t, second)["a.md"] == "a\n" })
	if r, _ := n.repoStatus(spec.Dir); r.Suppressed != "" {
		t.Errorf("suppressed = %q after the new token, want none", r.Suppressed)
	}
}
