package daemon

import (
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/teammemd/teammemd/watch"
)

// watcherOf returns the watcher of the running repo in dir, or nil.
func (n *node) watcherOf(dir string) *watch.Watcher {
	n.d.mu.Lock()
	defer n.d.mu.Unlock()
	for _, run := range n.d.repos {
		if run.spec.Dir == dir {
			return run.r.watcher
		}
	}
	return nil
}

// TestStatusShowsDebounce checks that a note saved while the debounce runs
// is in the status, under debouncing and not pending, with the repo's
// state saying so: before, it showed idle, nothing pending. A teammate's
// change pulled meanwhile leaves it there, sends nothing early, and is
// not shown as debouncing itself though the watcher holds it too. Once
// the debounce is over the note is pushed and leaves the list.
func TestStatusShowsDebounce(t *testing.T) { bubble(t, testStatusShowsDebounce) }

func testStatusShowsDebounce(t *testing.T) {
	const debounce = 10 * time.Second // on the bubble's clock
	srv := startServer(t)
	dirA, dirB := t.TempDir(), t.TempDir()
	a := startNode(t, srv.Token, Plan{Specs: []Spec{{Repo: slug, Dir: dirA, Server: srv.URL, Source: "test"}}}, func(o *Options) {
		o.Watch.Debounce, o.Watch.MaxWait = debounce, debounce
	})
	b := startNode(t, srv.Token, Plan{Specs: []Spec{{Repo: slug, Dir: dirB, Server: srv.URL, Source: "test"}}}, nil)
	a.settles(t, dirA, "A idle and connected", func(r RepoStatus) bool { return r.State == StateIdle && r.Live })
	b.settles(t, dirB, "B idle and connected", func(r RepoStatus) bool { return r.State == StateIdle && r.Live })
	puts := a.count.puts.Load()

	write(t, dirA, "note.md", "saved just now\n")
	st := a.settles(t, dirA, "note.md in A's debounce", func(r RepoStatus) bool { return len(r.Debouncing) > 0 })
	if !slices.Equal(st.Debouncing, []string{"note.md"}) || len(st.Pending) != 0 || st.State != StateDebouncing {
		t.Errorf("A in the debounce: debouncing %q, pending %q, state %s; want [note.md], none, %s",
			st.Debouncing, st.Pending, st.State, StateDebouncing)
	}

	// A teammate's note, pulled while note.md waits: the watcher holds
	// the pull's write too, which is not a change of the user's.
	write(t, dirB, "theirs.md", "from B\n")
	eventually(t, "theirs.md on A", fileIs(filepath.Join(dirA, "theirs.md"), "from B\n"))
	w := a.watcherOf(dirA)
	eventually(t, "A's watcher to hold theirs.md", func() bool { return slices.Contains(w.Undelivered(), "theirs.md") })
	st, _ = a.repoStatus(dirA)
	if !slices.Equal(st.Debouncing, []string{"note.md"}) || len(st.Pending) != 0 || st.State != StateDebouncing {
		t.Errorf("A after the pull: debouncing %q, pending %q, state %s; want [note.md], none, %s",
			st.Debouncing, st.Pending, st.State, StateDebouncing)
	}
	if got := a.count.puts.Load(); got != puts {
		t.Errorf("A sent %d PUTs while note.md was in the debounce, want none", got-puts)
	}

	eventually(t, "note.md on B", fileIs(filepath.Join(dirB, "note.md"), "saved just now\n"))
	st = a.settles(t, dirA, "A idle", func(r RepoStatus) bool { return r.State == StateIdle })
	if len(st.Debouncing) != 0 || len(st.Pending) != 0 {
		t.Errorf("A after the push: debouncing %q, pending %q; want none", st.Debouncing, st.Pending)
	}
}
