package daemon

import (
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/servertest"
	memsync "github.com/teammemd/teammemd/sync"
	"github.com/teammemd/teammemd/watch"
)

// Memory is released once the pass that ran a large push is over: the
// provenance refresh after the push has run, so the garbage it leaves is
// released with the push's and not kept until the next collection.
func TestReleaseAfterTheWholePass(t *testing.T) {
	srv := servertest.Start(t)
	dir, state := t.TempDir(), t.TempDir()
	prov, err := memsync.ProvenancePath(state, slug, srv.URL, dir)
	if err != nil {
		t.Fatalf("ProvenancePath() error: %v", err)
	}
	// keysAtRelease is how many keys the provenance record held at the
	// first release; released counts the releases whose reading is done,
	// so the test reads keysAtRelease only once it is set.
	var calls, released atomic.Int64
	var keysAtRelease atomic.Int64
	keysAtRelease.Store(-1)
	n := startNode(t, srv.Token, Plan{Specs: []Spec{{Repo: slug, Dir: dir, Server: srv.URL, Source: "test"}}}, func(o *Options) {
		o.Open = testOpener(t, srv.Token, state, &counter{next: http.DefaultTransport.(*http.Transport).Clone()}, nil)
		o.Watch = watch.Options{Debounce: time.Second, MaxWait: 10 * time.Second}
		o.ReleaseMemory = func() {
			if calls.Add(1) > 1 {
				return
			}
			defer released.Add(1)
			p, err := memsync.LoadProvenance(prov)
			if err != nil {
				keysAtRelease.Store(0)
				return
			}
			keysAtRelease.Store(int64(len(p.Keys)))
		}
	})
	eventually(t, "daemon settled", func() bool {
		st := n.d.Status()
		return len(st.Repos) == 1 && st.Repos[0].LastPush != nil
	})
	for i := range ReleaseAfter {
		write(t, dir, fmt.Sprintf("many/%03d.md", i), fmt.Sprintf("note %d\n", i))
	}
	eventually(t, "memory released after the large push", func() bool { return released.Load() > 0 })
	if got := keysAtRelease.Load(); got < ReleaseAfter {
		t.Errorf("provenance record held %d keys at the release, want at least %d (the refresh after the push runs first)",
			got, ReleaseAfter)
	}
}
