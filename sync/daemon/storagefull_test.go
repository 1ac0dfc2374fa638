package daemon

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/teammemd/teammemd/internal/lockedbuf"
	"github.com/teammemd/teammemd/server/servertest"
	"github.com/teammemd/teammemd/server/store"
)

// fillServer caps the server's database at the pages it holds and writes
// to another repo until the store refuses a write for want of room, and
// returns the cap.
func fillServer(t *testing.T, srv *servertest.Server) int64 {
	t.Helper()
	ctx := context.Background()
	pages, err := srv.Store.LimitPages(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2000 {
		_, err := srv.Store.Apply(ctx, store.Write{Repo: "acme/filler", Entries: map[string]string{fmt.Sprint(i, ".md"): strings.Repeat("x", 6000)},
			Subject: "filler", Time: time.Now()})
		if errors.Is(err, store.ErrFull) {
			return pages
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	t.Fatal("2000 writes fitted under the page cap")
	return 0
}

// A push to a server whose storage is full (the real server, its
// database capped, answering 507) keeps the edit, is retried with the
// daemon's backoff, and the status and the log say that the server's
// storage is full; once the server has room the edit is pushed. This
// test keeps the real watcher and real TCP on 127.0.0.1, in real time.
func TestPushWaitsForRoomOnAFullServer(t *testing.T) {
	srv := startServer(t)
	dir := t.TempDir()
	var logs lockedbuf.Buffer
	n := startNode(t, srv.Token, Plan{Specs: []Spec{{Repo: slug, Dir: dir, Server: srv.URL, Source: "test"}}}, func(o *Options) {
		o.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	})
	n.settles(t, dir, "first sync", func(r RepoStatus) bool { return r.State == StateIdle })
	pages := fillServer(t, srv)

	content := strings.Repeat("a note kept through a full disk\n", 200)
	write(t, dir, "note.md", content)
	const full = "the server's storage is full (HTTP 507)"
	r := n.settles(t, dir, "push refused for a full storage", func(r RepoStatus) bool {
		return r.State == StateRetrying && strings.Contains(r.RetryCause, full)
	})
	if !slices.Contains(r.Pending, "note.md") || r.LastPush == nil || r.LastPush.OK || !strings.Contains(r.LastPush.Result, full) {
		t.Errorf("status while the server is full: pending %v, last push %+v; want note.md pending and a failed push saying %q", r.Pending, r.LastPush, full)
	}
	if text := logs.String(); !strings.Contains(text, "push failed; will retry") || !strings.Contains(text, full) {
		t.Errorf("daemon log lacks the retried push saying %q:\n%s", full, text)
	}
	if !fileIs(filepath.Join(dir, "note.md"), content)() {
		t.Fatal("note.md changed while the server was full")
	}

	if _, err := srv.Store.LimitPages(context.Background(), pages+100000); err != nil {
		t.Fatal(err)
	}
	n.settles(t, dir, "push once the server has room", func(r RepoStatus) bool { return r.State == StateIdle && len(r.Pending) == 0 })
	snap, err := srv.Store.Snapshot(context.Background(), slug, true)
	if err != nil {
		t.Fatal(err)
	}
	if snap.Entries["note.md"] != content {
		t.Errorf("server holds note.md = %d bytes once it has room, want the edit's %d", len(snap.Entries["note.md"]), len(content))
	}
}
