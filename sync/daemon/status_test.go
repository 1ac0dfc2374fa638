package daemon

import (
	"slices"
	"strings"
	"testing"
	"time"

	memsync "github.com/teammemd/teammemd/sync"
)

// TestStatusWhileServerDown checks that a repo whose first pull cannot
// reach the server shows it retrying, with the retry's cause and the files
// not sent yet (not pulling, as if all went well), and settles to idle
// once the server is back.
func TestStatusWhileServerDown(t *testing.T) { bubble(t, testStatusWhileServerDown) }

func testStatusWhileServerDown(t *testing.T) {
	srv := startServer(t)
	srv.Stop()
	dir := t.TempDir()
	write(t, dir, "MEMORY.md", "# notes\n")
	n := startNode(t, srv.Token, Plan{Specs: []Spec{{Repo: slug, Dir: dir, Server: srv.URL, Source: "test"}}}, func(o *Options) {
		c := &counter{next: newTransport(t)}
		o.Open = testOpener(t, srv.Token, t.TempDir(), c, nil, memsync.WithRetry(20, 100*time.Millisecond, 200*time.Millisecond))
	})
	eventually(t, "a retried first pull in the status", func() bool {
		r, _ := n.repoStatus(dir)
		return r.State == StateRetrying && r.LastPull == nil && r.NextRetry != nil &&
			strings.Contains(r.RetryCause, "connection refused") && slices.Equal(r.Pending, []string{"MEMORY.md"})
	})
	srv.Restart(t)
	eventually(t, "MEMORY.md on the server", func() bool { return serverEntries(t, srv)["MEMORY.md"] == "# notes\n" })
	eventually(t, "the repo idle", func() bool {
		r, _ := n.repoStatus(dir)
		return r.State == StateIdle && len(r.Pending) == 0 && r.NextRetry == nil && r.RetryCause == ""
	})
}

// TestStatusWhileServerAway checks that a synced repo whose server goes
// away shows the change wait's retries with their cause, and not after the
// server is back.
func TestStatusWhileServerAway(t *testing.T) { bubble(t, testStatusWhileServerAway) }

func testStatusWhileServerAway(t *testing.T) {
	srv := startServer(t)
	dir := t.TempDir()
	n := startNode(t, srv.Token, Plan{Specs: []Spec{{Repo: slug, Dir: dir, Server: srv.URL, Source: "test"}}}, func(o *Options) {
		c := &counter{next: newTransport(t)}
		o.Open = testOpener(t, srv.Token, t.TempDir(), c, nil, memsync.WithRetry(20, 100*time.Millisecond, 200*time.Millisecond))
	})
	eventually(t, "the repo idle", func() bool { r, _ := n.repoStatus(dir); return r.State == StateIdle && r.Live })
	srv.Stop()
	eventually(t, "retries in the status", func() bool {
		r, _ := n.repoStatus(dir)
		return r.State == StateRetrying && r.NextRetry != nil && strings.Contains(r.RetryCause, "connection refused")
	})
	srv.Restart(t)
	eventually(t, "the repo idle again", func() bool {
		r, _ := n.repoStatus(dir)
		return r.State == StateIdle && r.NextRetry == nil && r.RetryCause == ""
	})
}
