package daemon

import (
	"context"
	"slices"
	"strings"
	"testing"

	"golang.org/x/oauth2"

	"github.com/teammemd/teammemd/server/servertest"
	memsync "github.com/teammemd/teammemd/sync"
)

// engineOn builds a plain engine on dir and state, as "teammemd sync"
// would beside the daemon.
func engineOn(t *testing.T, srv *servertest.Server, dir, state string) *memsync.Engine {
	t.Helper()
	client, err := memsync.NewClient(srv.URL, oauth2.StaticTokenSource(&oauth2.Token{AccessToken: srv.Token}), memsync.WithTransport(newTransport(t)))
	if err != nil {
		t.Fatal(err)
	}
	eng, err := memsync.New(memsync.Config{Dir: dir, Repo: slug, Server: srv.URL, StateDir: state}, memsync.Options{Client: client})
	if err != nil {
		t.Fatal(err)
	}
	return eng
}

// TestStatusConflictsAndWarnings: the status counts the conflict copies
// the repo's state lists, also one kept before the daemon started, and
// drops one settled beside the daemon; it shows the guards' warnings.
func TestStatusConflictsAndWarnings(t *testing.T) { bubble(t, testStatusConflictsAndWarnings) }

func testStatusConflictsAndWarnings(t *testing.T) {
	srv := startServer(t)
	ctx := context.Background()
	other, dir, state := t.TempDir(), t.TempDir(), t.TempDir()
	a, b := engineOn(t, srv, other, t.TempDir()), engineOn(t, srv, dir, state)
	write(t, other, "n.md", "base\n")
	write(t, other, "o.md", "other\n")
	for _, step := range []func() (memsync.Report, error){
		func() (memsync.Report, error) { return a.Sync(ctx) },
		func() (memsync.Report, error) { return b.Sync(ctx) },
		func() (memsync.Report, error) { write(t, other, "n.md", "a's edit\n"); return a.Sync(ctx) },
		func() (memsync.Report, error) { write(t, dir, "n.md", "b's edit\n"); return b.Sync(ctx) },
	} {
		if _, err := step(); err != nil {
			t.Fatal(err)
		}
	}
	copies, err := b.Conflicts()
	if err != nil || len(copies) != 1 {
		t.Fatalf("Conflicts() = %+v, %v, want one copy", copies, err)
	}
	n := startNode(t, srv.Token, Plan{Specs: []Spec{{Repo: slug, Dir: dir, Server: srv.URL, Source: "test"}}}, func(o *Options) {
		o.Open = testOpener(t, srv.Token, state, &counter{next: newTransport(t)}, nil)
	})
	// The copy was made before this daemon started: its state is told
	// from the copy all the same.
	eventually(t, "the state conflict, for the copy the saved state lists", func() bool {
		r, _ := n.repoStatus(dir)
		return r.State == StateConflict && len(r.Conflict) == 1
	})
	write(t, dir, "MEMORY.md", strings.Repeat("- a line\n", 201))
	eventually(t, "the copy and a warning on MEMORY.md in the status", func() bool {
		r, _ := n.repoStatus(dir)
		return len(r.Conflict) == 1 && r.Conflict[0] == copies[0].Path && slices.ContainsFunc(r.Warnings, func(w Warning) bool {
			return w.Path == "MEMORY.md" && strings.Contains(w.Message, "the last 1 lines (9 bytes) are cut")
		})
	})
	if _, err := b.Resolve(ctx, copies[0], memsync.KeepServer, memsync.KeepServer, nil); err != nil {
		t.Fatalf("Resolve() = %v", err)
	}
	if r, _ := n.repoStatus(dir); len(r.Conflict) != 0 {
		t.Errorf("status after the copy was settled lists %v, want no conflict copy", r.Conflict)
	}
}
