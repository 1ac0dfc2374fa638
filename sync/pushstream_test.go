package memsync

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/teammemd/teammemd/scan"
	"github.com/teammemd/teammemd/scan/scantest"
	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/servertest"
)

// putSignal is a client that closes first when its first PUT has been
// answered, and can be told to fail every PUT.
type putSignal struct {
	*Client
	first chan struct{}
	puts  atomic.Int32
	fail  bool
}

func (r *putSignal) Put(ctx context.Context, repo, ifMatch string, body []byte) (api.PutResponse, error) {
	var resp api.PutResponse
	err := errors.New("the network is down")
	if !r.fail {
		resp, err = r.Client.Put(ctx, repo, ifMatch, body)
	}
	if r.puts.Add(1) == 1 {
		close(r.first)
	}
	return resp, err
}

// lastFileGate is a real scanner that holds the scan of one file until the
// first PUT was answered, or until a bound, and records which came first.
type lastFileGate struct {
	*scan.Scanner
	last     string // the file's path
	put      <-chan struct{}
	putFirst atomic.Bool
}

func (g *lastFileGate) File(ctx context.Context, path string, data []byte) ([]scan.Finding, error) {
	if path == g.last {
		select {
		case <-g.put:
			g.putFirst.Store(true)
		case <-ctx.Done():
		case <-time.After(10 * time.Second):
		}
	}
	return g.Scanner.File(ctx, path, data)
}

// gatedPeer is a peer whose scanner holds the scan of last until its
// first PUT was answered.
func gatedPeer(t *testing.T, srv *servertest.Server, last string, fail bool) (*peer, *lastFileGate, *putSignal) {
	t.Helper()
	rem := &putSignal{Client: testClient(t, srv.URL, srv.Token), first: make(chan struct{}), fail: fail}
	gate := &lastFileGate{Scanner: realScanner(t), put: rem.first}
	p := peerWith(t, srv.URL, Options{Client: rem.Client, Remote: rem, Scanner: gate})
	gate.last = filepath.Join(p.dir, last)
	return p, gate, rem
}

// fillBatches writes notes of 40 KB enough to fill three PUT batches, and
// returns their keys in key order.
func fillBatches(t *testing.T, p *peer) []string {
	t.Helper()
	value := strings.Repeat("a note line that says nothing secret.\n", 1100)[:40<<10]
	var keys []string
	for i := range 3 * (api.BatchMaxBytes / len(value)) {
		k := fmt.Sprintf("n%02d.md", i)
		p.write(t, k, value)
		keys = append(keys, k)
	}
	return keys
}

// A push sends its first batch while later files are still being
// scanned; a secret in a file after it is still held back, and every
// other file arrives.
func TestPushSendsTheFirstBatchBeforeTheLastFileIsScanned(t *testing.T) {
	srv := servertest.Start(t)
	last := "z-last.md"
	a, gate, rem := gatedPeer(t, srv, last, false)
	keys := fillBatches(t, a)
	a.write(t, "y-secret.md", "deploy with "+scantest.AWSKey()+"\n")
	a.write(t, last, "the last note\n")
	rep := a.sync(t)
	if !gate.putFirst.Load() {
		t.Errorf("the last file was scanned before the first PUT was answered; want the first batch sent while the rest are scanned")
	}
	if rep.PUTs < 3 || int(rem.puts.Load()) != rep.PUTs {
		t.Errorf("%d PUTs (%d seen), want at least 3", rep.PUTs, rem.puts.Load())
	}
	if len(rep.Blocked) != 1 || rep.Blocked[0].Key != "y-secret.md" {
		t.Errorf("blocked %v, want y-secret.md alone", rep.Blocked)
	}
	b := newPeer(t, srv.URL, srv.Token, nil)
	b.sync(t)
	for _, k := range append(keys, last) {
		if b.read(t, k) != a.read(t, k) {
			t.Errorf("the teammate's %s differs from the saved one", k)
		}
	}
	if tree := treeOf(t, b.dir); strings.Contains(tree, scantest.AWSKey()) {
		t.Errorf("the secret reached the teammate")
	}
}

// When the first batch fails, nothing more is sent, and the report still
// names a secret found in a file after it.
func TestPushThatFailsStillReportsEverySecret(t *testing.T) {
	srv := servertest.Start(t)
	last := "z-last.md"
	a, _, rem := gatedPeer(t, srv, last, false)
	a.sync(t) // the first pull, through the working remote
	rem.fail = true
	fillBatches(t, a)
	a.write(t, "y-secret.md", "deploy with "+scantest.AWSKey()+"\n")
	a.write(t, last, "the last note\n")
	rep, err := a.eng.Sync(context.Background())
	if err == nil {
		t.Fatal("Sync with every PUT failing: no error")
	}
	if n := rem.puts.Load(); n != 1 {
		t.Errorf("%d PUTs, want 1: nothing more after the first failed", n)
	}
	if len(rep.Blocked) != 1 || rep.Blocked[0].Key != "y-secret.md" {
		t.Errorf("blocked %v, want y-secret.md", rep.Blocked)
	}
}

// TestFileChecks: a push's checks give each key its file, or its error,
// in key order, whether one key is checked at once or several on the
// pool, and none once the push is stopped.
func TestFileChecks(t *testing.T) {
	dir := t.TempDir()
	for _, k := range []string{"a.md", "b.md", "c.md"} {
		must(t, os.WriteFile(filepath.Join(dir, k), []byte("note "+k), 0o644))
	}
	eng := newTestEngine(t, "http://127.0.0.1:1", "token", dir, t.TempDir(), nil)
	td, err := openTeamDir(dir)
	must(t, err)
	defer td.close()
	s := &session{Engine: eng, st: newState(testRepo, "127.0.0.1:1"), td: td, rep: &Report{}}
	stopped, cancel := context.WithCancel(context.Background())
	cancel()
	for _, keys := range [][]string{{"a.md"}, {"gone.md"}, {"a.md", "b.md", "gone.md", "c.md"}} {
		for _, ctx := range []context.Context{context.Background(), stopped} {
			checks := s.startChecks(ctx, keys, nil)
			for i, k := range keys {
				c, err := checks.get(i)
				switch {
				case ctx.Err() != nil:
					if !errors.Is(err, context.Canceled) {
						t.Errorf("%v, stopped: check of %s = %v, want context.Canceled", keys, k, err)
					}
				case k == "gone.md":
					if !errors.Is(err, fs.ErrNotExist) {
						t.Errorf("%v: check of %s = %v, want fs.ErrNotExist", keys, k, err)
					}
				case err != nil || string(c.data) != "note "+k || !c.text:
					t.Errorf("%v: check of %s = %q (text %v), %v; want %q", keys, k, c.data, c.text, err, "note "+k)
				}
			}
			checks.stop()
		}
	}
}
