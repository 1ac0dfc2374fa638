package memsync

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/servertest"
)

// countingRemote is a client that counts the pulls it sends, and apart
// the whole pulls (Get).
type countingRemote struct {
	*Client
	pulls, gets atomic.Int32
}

func (r *countingRemote) Get(ctx context.Context, repo, ifNoneMatch string) (api.FullResponse, bool, error) {
	r.pulls.Add(1)
	r.gets.Add(1)
	return r.Client.Get(ctx, repo, ifNoneMatch)
}

func (r *countingRemote) GetOnly(ctx context.Context, repo, ifNoneMatch, at string, keys []string) (api.FullResponse, bool, error) {
	r.pulls.Add(1)
	return r.Client.GetOnly(ctx, repo, ifNoneMatch, at, keys)
}

// countedPeer is a teammate, synced, whose engine pulls through a
// countingRemote of c, the client of the server at url.
func countedPeer(t *testing.T, url string, c *Client) (*peer, *countingRemote) {
	t.Helper()
	rem := &countingRemote{Client: c}
	b := peerWith(t, url, Options{Client: c, Remote: rem})
	b.sync(t)
	return b, rem
}

// peerWith is a teammate of the server at url whose engine has opts.
func peerWith(t *testing.T, url string, opts Options) *peer {
	t.Helper()
	p := &peer{dir: filepath.Join(t.TempDir(), "team"), state: t.TempDir()}
	if err := os.MkdirAll(p.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	eng, err := New(Config{Dir: p.dir, Repo: testRepo, Server: url, StateDir: p.state}, opts)
	if err != nil {
		t.Fatal(err)
	}
	p.eng = eng
	return p
}

// waitForPush holds a change wait with the changes since c's current
// hashes while a pushes the files of writes, and returns the whole hashes
// the wait's answer makes.
func waitForPush(t *testing.T, srv *servertest.Server, c *Client, a *peer, writes map[string]string) api.HashesResponse {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	held, err := c.Hashes(ctx, testRepo)
	if err != nil {
		t.Fatal(err)
	}
	type answer struct {
		h   api.HashesResponse
		err error
	}
	got := make(chan answer, 1)
	go func() {
		h, _, err := c.WaitChanges(ctx, testRepo, held, 20*time.Second, nil)
		got <- answer{h, err}
	}()
	awaitParked(t, srv)
	for k, v := range writes {
		a.write(t, k, v)
	}
	a.sync(t)
	ans := <-got
	if ans.err != nil {
		t.Fatal(ans.err)
	}
	return ans.h
}

// A change wait woken by one push brings that push's values; the pull
// takes them and sends no request. A value that does not match its
// checksum is not taken: that key alone is pulled.
func TestPullTakesTheChangeWaitsValues(t *testing.T) {
	for name, forge := range map[string]bool{"as sent": false, "one forged": true} {
		t.Run(name, func(t *testing.T) {
			srv, a, c := twoNotesPushed(t)
			b, rem := countedPeer(t, srv.URL, c)
			h := waitForPush(t, srv, c, a, map[string]string{"one.md": "1b", "three.md": "3"})
			if len(h.Entries) != 2 || h.Entries["one.md"] != "1b" || h.Entries["three.md"] != "3" {
				t.Fatalf("the wait's answer carries %v, want the push's two values", h.Entries)
			}
			if forge {
				h.Entries["one.md"] = "forged"
			}
			before := rem.pulls.Load()
			if _, err := b.eng.PullChanged(context.Background(), h); err != nil {
				t.Fatal(err)
			}
			want := int32(0)
			if forge {
				want = 1
			}
			if n := rem.pulls.Load() - before; n != want {
				t.Errorf("the pull sent %d requests, want %d", n, want)
			}
			if got1, got3 := b.read(t, "one.md"), b.read(t, "three.md"); got1 != "1b" || got3 != "3" {
				t.Errorf("b holds one.md %q, three.md %q; want the pushed values", got1, got3)
			}
			if b.eng.Checksum() != h.Checksum {
				t.Errorf("b's checksum %s, want the answer's %s", b.eng.Checksum(), h.Checksum)
			}
		})
	}
}

// A pull of more changed keys than one request may name asks for them in
// several named pulls, not for the whole repo.
func TestPullOfManyChangedKeysNamesThemInSeveralRequests(t *testing.T) {
	srv := servertest.Start(t)
	a := newPeer(t, srv.URL, srv.Token, nil)
	for i := range api.MaxOnlyKeys + 44 {
		a.write(t, fmt.Sprintf("n%03d.md", i), "first")
	}
	a.write(t, "same.md", "unchanged")
	a.sync(t)
	c := testClient(t, srv.URL, srv.Token)
	b, rem := countedPeer(t, srv.URL, c)
	for i := range api.MaxOnlyKeys + 44 {
		a.write(t, fmt.Sprintf("n%03d.md", i), "second")
	}
	a.sync(t)
	h, err := c.Hashes(context.Background(), testRepo)
	if err != nil {
		t.Fatal(err)
	}
	rem.gets.Store(0)
	rem.pulls.Store(0)
	if _, err := b.eng.PullChanged(context.Background(), h); err != nil {
		t.Fatal(err)
	}
	if full, named := rem.gets.Load(), rem.pulls.Load()-rem.gets.Load(); full != 0 || named != 2 {
		t.Errorf("the pull sent %d whole pulls and %d named ones, want 0 and 2", full, named)
	}
	if got := b.read(t, "n299.md"); got != "second" {
		t.Errorf("b holds n299.md %q, want the second value", got)
	}
}

func TestNameableKeysPerPull(t *testing.T) {
	keys := func(n, size int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf("%0*d", size, i)
		}
		return out
	}
	long := keys(100, 500)
	if n := nameable(long); n < 1 || onlyQueryBytes(long[:n]) > maxOnlyQueryBytes || onlyQueryBytes(long[:n+1]) <= maxOnlyQueryBytes {
		t.Errorf("nameable(100 keys of 500 bytes) = %d, want as many as fit %d bytes of query", n, maxOnlyQueryBytes)
	}
	if n := nameable(keys(api.MaxOnlyKeys+1, 8)); n != api.MaxOnlyKeys {
		t.Errorf("nameable(short keys) = %d, want %d", n, api.MaxOnlyKeys)
	}
	if tooManyToName(keys(maxOnlyRequests*api.MaxOnlyKeys, 8)) || !tooManyToName(keys(maxOnlyRequests*api.MaxOnlyKeys+1, 8)) {
		t.Errorf("tooManyToName: want %d pulls of %d keys nameable and one key more not", maxOnlyRequests, api.MaxOnlyKeys)
	}
}
