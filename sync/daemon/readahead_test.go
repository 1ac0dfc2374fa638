//go:build testhooks

package daemon

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/sync/internal/hashcount"
	"github.com/teammemd/teammemd/watch"
)

// TestSaveReadAhead: with a debounce longer than the settle time, a saved
// note is read, hashed and scanned while the debounce runs, and the push
// the debounce starts hashes it no more: one hash from the save to the
// server, where a push alone takes two (TestOneNoteHashes). It runs on the
// real watcher and clock: the read ahead trusts a file by its mtime.
func TestSaveReadAhead(t *testing.T) {
	const note = "---\nname: deploys\ndescription: how we deploy\ntype: project\n---\nDeploys go out on Tuesdays.\n"
	srv := startServer(t)
	dir := t.TempDir()
	n := startNode(t, srv.Token, Plan{Specs: []Spec{{Repo: slug, Dir: dir, Server: srv.URL, Source: "test"}}}, func(o *Options) {
		o.Watch = watch.Options{Debounce: 2 * time.Second, MaxWait: 10 * time.Second}
	})
	n.settles(t, dir, "the first sync", func(s RepoStatus) bool { return s.LastPush != nil })
	hashes := hashcount.Count(t, func(v []byte) bool { return string(v) == note })
	write(t, filepath.Join(dir, "ops"), "deploys.md", note)
	pushed := api.RepoChecksum(map[string]string{"ops/deploys.md": api.EntryChecksum(note)}, nil)
	eventually(t, "the note pushed", func() bool { return serverChecksum(t, srv) == pushed })
	if got := hashes.Load(); got != 1 {
		t.Errorf("a saved note was hashed %d times on its way to the server, want 1 (read ahead, not again by the push)", got)
	}
}
