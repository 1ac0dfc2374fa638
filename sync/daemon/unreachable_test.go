package daemon

import (
	"context"
	"testing"
	"time"

	memsync "github.com/teammemd/teammemd/sync"
)

// Once the server is gone, the status says so as soon as a request fails,
// though the client still has retries to make (a minute apart here), and
// keeps the time the server last answered.
func TestStatusShowsUnreachableAtFirstFailure(t *testing.T) {
	bubble(t, testStatusShowsUnreachableAtFirstFailure)
}

func testStatusShowsUnreachableAtFirstFailure(t *testing.T) {
	srv := startServer(t)
	dir := t.TempDir()
	c := &counter{next: newTransport(t)}
	n := startNode(t, srv.Token, Plan{Specs: []Spec{{Repo: slug, Dir: dir, Server: srv.URL, Source: "test"}}}, func(o *Options) {
		o.Open = testOpener(t, srv.Token, t.TempDir(), c, nil, memsync.WithRetry(4, time.Minute, time.Minute))
	})
	eventually(t, "repo live", func() bool {
		r, _ := n.repoStatus(dir)
		return r.Live && r.LastPush != nil
	})
	srv.Stop()
	eventually(t, "status not connected", func() bool {
		r, _ := n.repoStatus(dir)
		return !r.Live
	})
	r, _ := n.repoStatus(dir)
	if r.UnreachableSince == nil || r.LastContact == nil || r.UnreachableSince.Before(*r.LastContact) {
		t.Errorf("UnreachableSince = %v, LastContact = %v; want both, unreachable after the last contact", r.UnreachableSince, r.LastContact)
	}

	// A reload tries again at once; the answer ends the unreachable spell.
	srv.Restart(t)
	if err := n.d.Reload(context.Background(), Plan{Specs: []Spec{{Repo: slug, Dir: dir, Server: srv.URL, Source: "test"}}}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "server reachable again", func() bool {
		r, _ := n.repoStatus(dir)
		return r.UnreachableSince == nil && r.LastContact != nil
	})
}

// A change wait backing off from a server it could not reach reconnects
// as soon as the worker reaches the server again, instead of sleeping out
// its backoff (up to two minutes) while teammates' changes wait and the
// status still says the server cannot be reached.
func TestChangeWaitReconnectsWhenTheWorkerReachesTheServer(t *testing.T) {
	bubble(t, testChangeWaitReconnectsWhenTheWorkerReachesTheServer)
}

func testChangeWaitReconnectsWhenTheWorkerReachesTheServer(t *testing.T) {
	srv := startServer(t)
	dir := t.TempDir()
	plan := Plan{Specs: []Spec{{Repo: slug, Dir: dir, Server: srv.URL, Source: "test"}}}
	n := startNode(t, srv.Token, plan, func(o *Options) {
		o.MinBackoff, o.MaxBackoff = 10*time.Minute, 10*time.Minute
	})
	n.settles(t, dir, "repo live", func(r RepoStatus) bool { return r.Live && r.LastPush != nil })
	srv.Stop()
	n.settles(t, dir, "change wait backing off", func(r RepoStatus) bool {
		return !r.Live && r.State == StateRetrying
	})

	// A note saved meanwhile fails to push too; a reload has the worker
	// push it at once, and the push reaches the server.
	write(t, dir, "offline.md", "saved while the server was down")
	n.settles(t, dir, "push failed", func(r RepoStatus) bool {
		return r.LastPush != nil && !r.LastPush.OK
	})
	srv.Restart(t)
	if err := n.d.Reload(context.Background(), plan); err != nil {
		t.Fatal(err)
	}
	n.settles(t, dir, "change wait connected again", func(r RepoStatus) bool {
		return r.Live && r.State == StateIdle && r.NextRetry == nil
	})
}
