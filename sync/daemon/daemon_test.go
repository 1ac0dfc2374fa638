package daemon

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/servertest"
	memsync "github.com/teammemd/teammemd/sync"
)

const slug = "acme/app"

// pair starts one server and two daemons syncing the same repo.
func pair(t *testing.T) (srv *servertest.Server, a, b *node, dirA, dirB string) {
	t.Helper()
	srv = startServer(t)
	dirA, dirB = t.TempDir(), t.TempDir()
	a = startNode(t, srv.Token, Plan{Specs: []Spec{{Repo: slug, Dir: dirA, Server: srv.URL, Source: "test"}}}, nil)
	b = startNode(t, srv.Token, Plan{Specs: []Spec{{Repo: slug, Dir: dirB, Server: srv.URL, Source: "test"}}}, nil)
	eventually(t, "both daemons live", func() bool {
		ra, okA := a.repoStatus(dirA)
		rb, okB := b.repoStatus(dirB)
		return okA && okB && ra.Live && rb.Live
	})
	return srv, a, b, dirA, dirB
}

// serverEntries reads the entries of acme/app from the server; none when
// the repo was never written.
func serverEntries(t *testing.T, srv *servertest.Server) map[string]string {
	return repoEntries(t, srv, slug)
}

func repoEntries(t *testing.T, srv *servertest.Server, repo string) map[string]string {
	t.Helper()
	c, err := memsync.NewClient(srv.URL, oauth2.StaticTokenSource(&oauth2.Token{AccessToken: srv.Token}), memsync.WithTransport(newTransport(t)))
	if err != nil {
		t.Fatal(err)
	}
	full, _, err := c.Get(context.Background(), repo, "")
	if ae := (*api.Error)(nil); errors.As(err, &ae) && ae.Status == http.StatusNotFound {
		return nil
	}
	if err != nil {
		t.Fatalf("Get(%s) error: %v", repo, err)
	}
	return full.Content.Entries
}

// TestEditOnAAppearsOnB runs on the real wiring, outside a bubble: the
// fsnotify watcher and real TCP on 127.0.0.1, so it waits in real time.
// It proves what the bubbled tests take on trust: the kernel's
// notifications reach the daemon, a pull's own writes among them, and the
// client talks to the server over a socket.
func TestEditOnAAppearsOnB(t *testing.T) {
	srv := startServer(t)
	dirA, dirB := t.TempDir(), t.TempDir()
	logB := newLogRecorder()
	a := startNode(t, srv.Token, Plan{Specs: []Spec{{Repo: slug, Dir: dirA, Server: srv.URL, Source: "test"}}}, nil)
	b := startNode(t, srv.Token, Plan{Specs: []Spec{{Repo: slug, Dir: dirB, Server: srv.URL, Source: "test"}}}, func(o *Options) {
		o.Logger = slog.New(logB)
	})
	eventually(t, "B settled", func() bool { r, _ := b.repoStatus(dirB); return r.LastPush != nil })
	write(t, dirA, "MEMORY.md", "# team\nuse tabs\n")
	write(t, dirA, "sub/deep.md", "deep\n")
	eventually(t, "MEMORY.md on B", fileIs(filepath.Join(dirB, "MEMORY.md"), "# team\nuse tabs\n"))
	eventually(t, "sub/deep.md on B", fileIs(filepath.Join(dirB, "sub", "deep.md"), "deep\n"))

	// B's own pull writes fire its watcher; they are not a user change, so
	// no push follows.
	eventually(t, "B's watcher reported its pull writes", func() bool {
		return logB.count(msgOwnWrites) > 0
	})
	if got := b.count.puts.Load(); got != 0 {
		t.Errorf("B sent %d PUTs after pulling, want 0", got)
	}
	if r, _ := b.repoStatus(dirB); len(r.Pending) != 0 {
		t.Errorf("B pending = %v after its own pull writes, want none", r.Pending)
	}
	// And the other way round.
	write(t, dirB, "MEMORY.md", "# team\nuse spaces\n")
	eventually(t, "B's edit on A", fileIs(filepath.Join(dirA, "MEMORY.md"), "# team\nuse spaces\n"))
	if ra, _ := a.repoStatus(dirA); ra.Suppressed != "" {
		t.Errorf("A suppressed = %q, want none", ra.Suppressed)
	}
}

func TestSecretNeverReachesServer(t *testing.T) { bubble(t, testSecretNeverReachesServer) }

func testSecretNeverReachesServer(t *testing.T) {
	srv, a, _, dirA, _ := pair(t)
	secret := "github token ghp_" + "8fJq2LmZx7Rt4VbN1cWk9PdYs3HgE6uTaQ0o\n"
	write(t, dirA, "creds.md", secret)
	write(t, dirA, "ok.md", "fine\n")
	eventually(t, "ok.md on the server", func() bool { return serverEntries(t, srv)["ok.md"] == "fine\n" })
	if _, ok := serverEntries(t, srv)["creds.md"]; ok {
		t.Fatal("creds.md reached the server, want it held back")
	}
	eventually(t, "creds.md held back in A's status", func() bool {
		r, _ := a.repoStatus(dirA)
		return slices.ContainsFunc(r.Blocked, func(b Blocked) bool { return b.Path == "creds.md" && b.RuleID != "" })
	})
	r, _ := a.repoStatus(dirA)
	for _, bl := range r.Blocked {
		if strings.Contains(bl.RuleID+bl.Path, "ghp_") {
			t.Errorf("status holds the secret: %+v", bl)
		}
	}
}

func TestOfflineEditsConverge(t *testing.T) { bubble(t, testOfflineEditsConverge) }

func testOfflineEditsConverge(t *testing.T) {
	srv, a, b, dirA, dirB := pair(t)
	write(t, dirA, "shared.md", "v1\n")
	eventually(t, "shared.md on B", fileIs(filepath.Join(dirB, "shared.md"), "v1\n"))

	srv.Stop()
	eventually(t, "both daemons notice the outage", func() bool {
		ra, _ := a.repoStatus(dirA)
		rb, _ := b.repoStatus(dirB)
		return !ra.Live && !rb.Live
	})
	write(t, dirA, "from-a.md", "a\n")
	write(t, dirB, "from-b.md", "b\n")
	write(t, dirA, "shared.md", "edited on A\n")
	write(t, dirB, "shared.md", "edited on B\n")
	srv.Restart(t)

	eventually(t, "from-a.md on B", fileIs(filepath.Join(dirB, "from-a.md"), "a\n"))
	eventually(t, "from-b.md on A", fileIs(filepath.Join(dirA, "from-b.md"), "b\n"))
	eventually(t, "shared.md converges", func() bool {
		x, errA := os.ReadFile(filepath.Join(dirA, "shared.md"))
		y, errB := os.ReadFile(filepath.Join(dirB, "shared.md"))
		return errA == nil && errB == nil && string(x) == string(y)
	})
	// Nothing is lost: the losing edit is in a conflict copy on its side.
	winner, _ := os.ReadFile(filepath.Join(dirA, "shared.md"))
	loser, loserNode, loserDir := "edited on B\n", b, dirB
	if string(winner) == "edited on B\n" {
		loser, loserNode, loserDir = "edited on A\n", a, dirA
	}
	eventually(t, "the losing edit kept as a conflict copy", func() bool {
		r, _ := loserNode.repoStatus(loserDir)
		return slices.ContainsFunc(r.Conflict, func(p string) bool {
			data, err := os.ReadFile(p)
			return err == nil && string(data) == loser
		})
	})
}

func TestReloadAddsAndRemovesRepos(t *testing.T) { bubble(t, testReloadAddsAndRemovesRepos) }

func testReloadAddsAndRemovesRepos(t *testing.T) {
	srv := startServer(t)
	one := Spec{Repo: "acme/one", Dir: t.TempDir(), Server: srv.URL, Source: "test"}
	two := Spec{Repo: "acme/two", Dir: t.TempDir(), Server: srv.URL, Source: "test"}
	n := startNode(t, srv.Token, Plan{Specs: []Spec{one}}, nil)
	repos := func() []string {
		var out []string
		for _, r := range n.d.Status().Repos {
			out = append(out, r.Repo)
		}
		return out
	}
	eventually(t, "acme/one running", func() bool { return slices.Equal(repos(), []string{"acme/one"}) })
	ctx := context.Background()
	if err := n.d.Reload(ctx, Plan{Specs: []Spec{one, two}}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "acme/two added", func() bool { return slices.Equal(repos(), []string{"acme/one", "acme/two"}) })
	write(t, two.Dir, "two.md", "2\n")
	eventually(t, "two.md on the server", func() bool { return repoEntries(t, srv, "acme/two")["two.md"] == "2\n" })
	if err := n.d.Reload(ctx, Plan{Specs: []Spec{two}}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "acme/one removed", func() bool { return slices.Equal(repos(), []string{"acme/two"}) })
}

func TestFailingServerRequestsBounded(t *testing.T) { bubble(t, testFailingServerRequestsBounded) }

func testFailingServerRequestsBounded(t *testing.T) {
	var hits counter
	srv := newLoopbackServer(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.all.Add(1)
		http.Error(w, `{"type":"error","error":{"type":"api_error","message":"down","details":{"error_code":"internal_error"}}}`, http.StatusInternalServerError)
	}))
	dir := t.TempDir()
	const minBackoff = 100 * time.Millisecond
	start := time.Now()
	n := startNode(t, "token", Plan{Specs: []Spec{{Repo: slug, Dir: dir, Server: srv, Source: "test"}}}, func(o *Options) {
		o.MinBackoff, o.MaxBackoff = minBackoff, 4*minBackoff
	})
	// Local edits during the outage must not multiply the requests.
	for i := range 20 {
		write(t, dir, "f.md", strings.Repeat("x", i+1))
		time.Sleep(100 * time.Millisecond)
	}
	r, _ := n.repoStatus(dir)
	n.stop(t)
	ran := time.Since(start)
	// The change wait and the pushes each wait at least half the minimum
	// backoff (after jitter) between attempts, so however long the test
	// ran, each made at most one attempt per half backoff of it, plus the
	// start and the final flush. The bound follows the run's own length: a
	// slow machine raises it, and a retry storm (thousands) still breaks it.
	bound := 2*(1+int64(ran/(minBackoff/2))) + 2
	got := hits.all.Load()
	if got == 0 || got > bound {
		t.Errorf("requests to a failing server over %s = %d, want 1..%d", ran.Round(time.Millisecond), got, bound)
	}
	if r.Live {
		t.Errorf("status live = true against a failing server, want false")
	}
}

func TestShutdownFlushesPendingPush(t *testing.T) { bubble(t, testShutdownFlushesPendingPush) }

func testShutdownFlushesPendingPush(t *testing.T) {
	srv := startServer(t)
	dir := t.TempDir()
	n := startNode(t, srv.Token, Plan{Specs: []Spec{{Repo: slug, Dir: dir, Server: srv.URL, Source: "test"}}}, func(o *Options) {
		o.Watch.Debounce, o.Watch.MaxWait = time.Hour, time.Hour // never fires on its own
	})
	eventually(t, "daemon live", func() bool { r, ok := n.repoStatus(dir); return ok && r.Live })
	write(t, dir, "late.md", "written just before shutdown\n")
	n.stop(t)
	if got := serverEntries(t, srv)["late.md"]; got != "written just before shutdown\n" {
		t.Errorf("late.md on the server = %q, want the flushed content", got)
	}
}

func TestStopFlushesSaveAfterPull(t *testing.T) {
	for _, tc := range []struct {
		name string
		stop func(t *testing.T, n *node, keep Spec)
	}{
		{"shutdown", func(t *testing.T, n *node, _ Spec) { n.stop(t) }},
		{"reload removing the repo", func(t *testing.T, n *node, keep Spec) {
			if err := n.d.Reload(context.Background(), Plan{Specs: []Spec{keep}}); err != nil {
				t.Fatal(err)
			}
			eventually(t, "repo removed", func() bool { return len(n.d.Status().Repos) == 1 })
		}},
	} {
		t.Run(tc.name, func(t *testing.T) { bubble(t, func(t *testing.T) { testStopFlushesSaveAfterPull(t, tc.stop) }) })
	}
}

// A save still in the debounce when its repo stops is pushed by the last
// flush, after a pull of a teammate's note as well: the pull's scan ended
// the whole scan the watcher's start asked for, so the flush scans only
// the paths the watcher named, the save's among them.
func testStopFlushesSaveAfterPull(t *testing.T, stop func(t *testing.T, n *node, keep Spec)) {
	srv := startServer(t)
	dirA, dirB := t.TempDir(), t.TempDir()
	spec := Spec{Repo: slug, Dir: dirB, Server: srv.URL, Source: "test"}
	other := Spec{Repo: "acme/other", Dir: t.TempDir(), Server: srv.URL, Source: "test"}
	a := startNode(t, srv.Token, Plan{Specs: []Spec{{Repo: slug, Dir: dirA, Server: srv.URL, Source: "test"}}}, nil)
	b := startNode(t, srv.Token, Plan{Specs: []Spec{spec, other}}, func(o *Options) {
		o.Watch.Debounce, o.Watch.MaxWait = time.Hour, time.Hour // never fires on its own
	})
	eventually(t, "both daemons live", func() bool {
		ra, _ := a.repoStatus(dirA)
		rb, _ := b.repoStatus(dirB)
		return ra.Live && rb.Live && rb.LastPush != nil
	})
	write(t, dirA, "pre.md", "from alice\n")
	eventually(t, "pre.md pulled by B", fileIs(filepath.Join(dirB, "pre.md"), "from alice\n"))
	eventually(t, "B's pull recorded", func() bool { r, _ := b.repoStatus(dirB); return r.State == StateIdle })
	write(t, dirB, "sdq.md", "saved after the pull\n")
	// On the bubble's clock: the watcher polls and sees the save; its
	// debounce of an hour does not end.
	time.Sleep(time.Second)
	stop(t, b, other)
	if got := serverEntries(t, srv)["sdq.md"]; got != "saved after the pull\n" {
		t.Errorf("sdq.md on the server = %q, want the flushed content", got)
	}
}
