package daemon

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	memsync "github.com/teammemd/teammemd/sync"
)

// notingEngine is a real engine that records what the daemon tells it of
// the watcher's batches.
type notingEngine struct {
	*memsync.Engine
	mu    *sync.Mutex
	notes *[]string
}

func (e notingEngine) NoteChanges(paths []string, rescan bool) {
	e.mu.Lock()
	*e.notes = append(*e.notes, fmt.Sprintf("%v %s", rescan, strings.Join(paths, ",")))
	e.mu.Unlock()
	e.Engine.NoteChanges(paths, rescan)
}

func (e notingEngine) noted() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(*e.notes)
}

// The daemon tells its engine when the watcher watches (a rescan, which
// starts the engine's tracking) and then the paths of each batch of user
// changes; a batch of the pull's own writes alone is not told. Edits sync both
// ways throughout, with the engines scanning the named paths alone.
func TestDaemonTellsEngineWhatChanged(t *testing.T) { bubble(t, testDaemonTellsEngineWhatChanged) }

func testDaemonTellsEngineWhatChanged(t *testing.T) {
	srv := startServer(t)
	dirA, dirB := t.TempDir(), t.TempDir()
	engines := map[string]notingEngine{}
	var mu sync.Mutex
	opener := func(o *Options, dir string) {
		real := testOpener(t, srv.Token, t.TempDir(), &counter{next: newTransport(t)}, nil)
		o.Open = func(ctx context.Context, s Spec) (Engine, Waiter, error) {
			eng, w, err := real(ctx, s)
			if err != nil {
				return nil, nil, err
			}
			ne := notingEngine{Engine: eng.(*memsync.Engine), mu: &mu, notes: &[]string{}}
			mu.Lock()
			engines[dir] = ne
			mu.Unlock()
			return ne, w, nil
		}
	}
	a := startNode(t, srv.Token, Plan{Specs: []Spec{{Repo: slug, Dir: dirA, Server: srv.URL, Source: "test"}}}, func(o *Options) { opener(o, dirA) })
	b := startNode(t, srv.Token, Plan{Specs: []Spec{{Repo: slug, Dir: dirB, Server: srv.URL, Source: "test"}}}, func(o *Options) { opener(o, dirB) })
	eventually(t, "both settled", func() bool {
		ra, _ := a.repoStatus(dirA)
		rb, _ := b.repoStatus(dirB)
		return ra.LastPush != nil && rb.LastPush != nil
	})
	for i := range 3 {
		write(t, dirA, fmt.Sprintf("n%d.md", i), "first\n")
	}
	eventually(t, "the notes on B", fileIs(filepath.Join(dirB, "n2.md"), "first\n"))
	write(t, dirA, "n1.md", "second\n")
	eventually(t, "the edit on B", fileIs(filepath.Join(dirB, "n1.md"), "second\n"))
	write(t, dirB, "sub/deep.md", "from B\n")
	eventually(t, "B's note on A", fileIs(filepath.Join(dirA, "sub", "deep.md"), "from B\n"))

	mu.Lock()
	ea, eb := engines[dirA], engines[dirB]
	mu.Unlock()
	notesA, notesB := ea.noted(), eb.noted()
	if len(notesA) == 0 || notesA[0] != "true " {
		t.Fatalf("A's engine was told %q, want the watcher's rescan first", notesA)
	}
	if !slices.Contains(notesA, "false n1.md") {
		t.Errorf("A's engine was told %q, want n1.md's edit alone in one batch", notesA)
	}
	for _, n := range notesB {
		paths := strings.Split(strings.TrimPrefix(n, "false "), ",")
		if !slices.ContainsFunc(paths, func(p string) bool { return !strings.HasPrefix(p, "n") }) {
			t.Errorf("B's engine was told %q, a batch of its pull's own writes alone", n)
		}
	}
	if !slices.ContainsFunc(notesB, func(n string) bool { return strings.Contains(n, "sub/deep.md") }) {
		t.Errorf("B's engine was told %q, want sub/deep.md", notesB)
	}
}
