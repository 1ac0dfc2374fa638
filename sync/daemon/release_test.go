package daemon

import (
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/teammemd/teammemd/watch"
)

func TestLargeSyncsReleaseMemory(t *testing.T) { bubble(t, testLargeSyncsReleaseMemory) }

func testLargeSyncsReleaseMemory(t *testing.T) {
	srv := startServer(t)
	dirA, dirB := t.TempDir(), t.TempDir()
	var releasedA, releasedB atomic.Int64
	a := startNode(t, srv.Token, Plan{Specs: []Spec{{Repo: slug, Dir: dirA, Server: srv.URL, Source: "test"}}}, func(o *Options) {
		o.ReleaseMemory = func() { releasedA.Add(1) }
		// One batch for all the files below, however slowly they are written.
		o.Watch = watch.Options{Debounce: time.Second, MaxWait: 10 * time.Second}
	})
	b := startNode(t, srv.Token, Plan{Specs: []Spec{{Repo: slug, Dir: dirB, Server: srv.URL, Source: "test"}}}, func(o *Options) {
		o.ReleaseMemory = func() { releasedB.Add(1) }
	})
	for _, n := range []*node{a, b} {
		eventually(t, "daemon settled", func() bool {
			st := n.d.Status()
			return len(st.Repos) == 1 && st.Repos[0].LastPush != nil
		})
	}
	if got := releasedA.Load() + releasedB.Load(); got != 0 {
		t.Errorf("memory released %d times before any large sync, want 0", got)
	}
	for i := range ReleaseAfter {
		write(t, dirA, fmt.Sprintf("many/%03d.md", i), fmt.Sprintf("note %d\n", i))
	}
	last := filepath.Join(dirB, "many", fmt.Sprintf("%03d.md", ReleaseAfter-1))
	eventually(t, "the last file on B", fileIs(last, fmt.Sprintf("note %d\n", ReleaseAfter-1)))
	eventually(t, "A released memory after its large push", func() bool { return releasedA.Load() > 0 })
	eventually(t, "B released memory after its large pull", func() bool { return releasedB.Load() > 0 })

	beforeB := releasedB.Load()
	write(t, dirA, "one.md", "a small edit\n")
	eventually(t, "one.md on B", fileIs(filepath.Join(dirB, "one.md"), "a small edit\n"))
	eventually(t, "B recorded its small pull", func() bool {
		r, _ := b.repoStatus(dirB)
		return r.LastPull != nil && r.LastPull.Result == "1 pulled"
	})
	if got := releasedB.Load(); got != beforeB {
		t.Errorf("B released memory %d times after a one-file pull, want 0", got-beforeB)
	}
}
