package memsync

import (
	"context"
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/servertest"
)

// onlyRecorder is the client, recording the keys each pull asks the
// values of and the values each answer sent.
type onlyRecorder struct {
	*Client
	asked, sent [][]string
	// sums is how many entry checksums each answer carried.
	sums []int
	// before, when set, runs before each pull, with its number from 1.
	before func(n int)
}

func (r *onlyRecorder) GetOnly(ctx context.Context, repo, inm, at string, keys []string) (api.FullResponse, bool, error) {
	if r.before != nil {
		r.before(len(r.asked) + 1)
	}
	resp, mod, err := r.Client.GetOnly(ctx, repo, inm, at, keys)
	r.asked = append(r.asked, keys)
	r.sent = append(r.sent, slices.Sorted(maps.Keys(resp.Content.Entries)))
	r.sums = append(r.sums, len(resp.Content.EntryChecksums))
	return resp, mod, err
}

// hintedPeer is a peer whose engine pulls through an onlyRecorder.
func hintedPeer(t *testing.T, srv *servertest.Server) (*peer, *onlyRecorder) {
	t.Helper()
	p := newPeer(t, srv.URL, srv.Token, nil)
	rec := &onlyRecorder{Client: testClient(t, srv.URL, srv.Token)}
	e, err := New(Config{Dir: p.dir, Repo: testRepo, Server: srv.URL, StateDir: p.state}, Options{Client: rec.Client, Remote: rec})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	p.eng = e
	return p, rec
}

func hashesNow(t *testing.T, srv *servertest.Server) api.HashesResponse {
	t.Helper()
	h, err := testClient(t, srv.URL, srv.Token).Hashes(context.Background(), testRepo)
	if err != nil {
		t.Fatalf("Hashes: %v", err)
	}
	return h
}

// agreedPeers starts a server and two peers, a and a hinted b, that agree
// on entries: a pushed them and b pulled them.
func agreedPeers(t *testing.T, entries map[string]string) (*servertest.Server, *peer, *peer, *onlyRecorder) {
	t.Helper()
	srv := servertest.Start(t)
	a := newPeer(t, srv.URL, srv.Token, nil)
	b, rec := hintedPeer(t, srv)
	for k, v := range entries {
		a.write(t, k, v)
	}
	a.sync(t)
	b.sync(t)
	return srv, a, b, rec
}

func TestPullWithHintFetchesChangedValuesOnly(t *testing.T) {
	srv, a, b, rec := agreedPeers(t, map[string]string{"x.md": "x.md v1\n", "y.md": "y.md v1\n", "sub/z.md": "sub/z.md v1\n"})
	a.write(t, "x.md", "x.md v2\n")
	a.sync(t)
	if _, err := b.eng.PullChanged(context.Background(), hashesNow(t, srv)); err != nil {
		t.Fatalf("Pull: %v", err)
	}
	if want := [][]string{{"x.md"}}; !slices.EqualFunc(rec.asked, want, slices.Equal) || !slices.EqualFunc(rec.sent, want, slices.Equal) {
		t.Errorf("pull asked %q and got the values of %q, want %q both", rec.asked, rec.sent, want)
	}
	// The repo is still at the hint's checksum: the answer carries the
	// checksum of x.md alone, and the hint's give the rest.
	if !slices.Equal(rec.sums, []int{1}) {
		t.Errorf("the answers carried %v checksums, want [1]", rec.sums)
	}
	if got := b.read(t, "x.md"); got != "x.md v2\n" {
		t.Errorf("x.md = %q, want %q", got, "x.md v2\n")
	}
	rep := b.sync(t) // everything is in step: the full pull and the push find nothing
	if len(rep.Pulled) != 0 || len(rep.Pushed) != 0 || len(rep.Conflicts) != 0 {
		t.Errorf("sync after the pull: pulled %v, pushed %v, conflicts %v, want none", rep.Pulled, rep.Pushed, rep.Conflicts)
	}
	for _, k := range []string{"y.md", "sub/z.md"} {
		if got := b.read(t, k); got != k+" v1\n" {
			t.Errorf("%s = %q, want %q", k, got, k+" v1\n")
		}
	}
}

func TestPullWithStaleHintAsksAgain(t *testing.T) {
	srv, a, b, rec := agreedPeers(t, map[string]string{"x.md": "x v1\n", "y.md": "y v1\n"})
	a.write(t, "x.md", "x v2\n")
	a.sync(t)
	hint := hashesNow(t, srv)
	a.write(t, "y.md", "y v2\n") // after the hint: the pull does not ask for y.md
	a.sync(t)
	if _, err := b.eng.PullChanged(context.Background(), hint); err != nil {
		t.Fatalf("Pull: %v", err)
	}
	if want := [][]string{{"x.md"}, {"y.md"}}; !slices.EqualFunc(rec.asked, want, slices.Equal) {
		t.Errorf("pull asked %q, want %q: the hint's key, then the key the answer shows changed beside it", rec.asked, want)
	}
	// The first answer is past the hint and carries every checksum; the
	// second is at the first's checksum and carries y.md's alone.
	if !slices.Equal(rec.sums, []int{2, 1}) {
		t.Errorf("the answers carried %v checksums, want [2 1]", rec.sums)
	}
	for k, want := range map[string]string{"x.md": "x v2\n", "y.md": "y v2\n"} {
		if got := b.read(t, k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
}

// A pull answered at the hint's checksum takes the tombstones from the
// hint: a key deleted beside the one changed is deleted here too.
func TestPullWithHintTakesItsTombstones(t *testing.T) {
	srv, a, b, rec := agreedPeers(t, map[string]string{"x.md": "x v1\n", "y.md": "y v1\n"})
	a.write(t, "x.md", "x v2\n")
	a.remove(t, "y.md")
	a.sync(t)
	if _, err := b.eng.PullChanged(context.Background(), hashesNow(t, srv)); err != nil {
		t.Fatalf("Pull: %v", err)
	}
	if !slices.EqualFunc(rec.asked, [][]string{{"x.md"}}, slices.Equal) || !slices.Equal(rec.sums, []int{1}) {
		t.Errorf("pull asked %q and the answers carried %v checksums, want [[x.md]] and [1]", rec.asked, rec.sums)
	}
	if got := b.read(t, "x.md"); got != "x v2\n" {
		t.Errorf("x.md = %q, want %q", got, "x v2\n")
	}
	if _, err := os.Stat(filepath.Join(b.dir, "y.md")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("y.md after the pull: %v, want it deleted", err)
	}
	if rep := b.sync(t); len(rep.Pulled) != 0 || len(rep.Pushed) != 0 || len(rep.Conflicts) != 0 {
		t.Errorf("sync after the pull: pulled %v, pushed %v, conflicts %v, want none", rep.Pulled, rep.Pushed, rep.Conflicts)
	}
}

func TestPullWithHintKeepsLocalEdit(t *testing.T) {
	srv, a, b, _ := agreedPeers(t, map[string]string{"x.md": "x v1\n", "y.md": "y v1\n"})
	b.write(t, "y.md", "y edited on b\n") // unpushed: the pull must leave it
	b.write(t, "x.md", "x edited on b\n") // unpushed, and the server changes it: a conflict copy
	a.write(t, "x.md", "x v2\n")
	a.sync(t)
	rep, err := b.eng.PullChanged(context.Background(), hashesNow(t, srv))
	if err != nil {
		t.Fatalf("Pull: %v", err)
	}
	if got := b.read(t, "y.md"); got != "y edited on b\n" {
		t.Errorf("y.md = %q, want the local edit", got)
	}
	if got := b.read(t, "x.md"); got != "x v2\n" {
		t.Errorf("x.md = %q, want the server's", got)
	}
	assertConflict(t, rep, "x.md", "x edited on b\n")
	b.sync(t)
	if got := serverEntries(t, srv)["y.md"]; got != "y edited on b\n" {
		t.Errorf("server y.md = %q, want b's edit, pushed", got)
	}
}

// A pull that chases a repo a teammate keeps changing asks each round for
// the values it lacks as the newest answer has them: a key it got whose
// value changed again is asked again, one it got unchanged is not. What
// it writes is the last answer's version, every value checked against
// that answer's checksums.
func TestPullChasesAMovingRepo(t *testing.T) {
	srv, a, b, rec := agreedPeers(t, map[string]string{"x.md": "x.md v1\n", "y.md": "y.md v1\n", "z.md": "z.md v1\n"})
	a.write(t, "x.md", "x.md v2\n")
	a.sync(t)
	hint := hashesNow(t, srv)
	rec.before = func(n int) {
		switch n {
		case 1: // y.md changes: the first answer sends x.md and shows y.md changed
			a.write(t, "y.md", "y.md v2\n")
			a.sync(t)
		case 2: // x.md changes again, z.md for the first time
			a.write(t, "x.md", "x.md v3\n")
			a.write(t, "z.md", "z.md v2\n")
			a.sync(t)
		}
	}
	rep, err := b.eng.PullChanged(context.Background(), hint)
	if err != nil {
		t.Fatalf("Pull: %v", err)
	}
	want := [][]string{{"x.md"}, {"y.md"}, {"x.md", "z.md"}}
	if !slices.EqualFunc(rec.asked, want, slices.Equal) {
		t.Errorf("pull asked %q, want %q", rec.asked, want)
	}
	if !slices.Equal(rec.sums, []int{3, 3, 2}) {
		t.Errorf("the answers carried %v checksums, want [3 3 2]: the last one at the second's checksum", rec.sums)
	}
	for k, v := range map[string]string{"x.md": "x.md v3\n", "y.md": "y.md v2\n", "z.md": "z.md v2\n"} {
		if got := b.read(t, k); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	if !slices.Equal(rep.Pulled, []string{"x.md", "y.md", "z.md"}) {
		t.Errorf("pulled %v, want x.md, y.md and z.md", rep.Pulled)
	}
	if rep := b.sync(t); len(rep.Pulled) != 0 || len(rep.Pushed) != 0 || len(rep.Conflicts) != 0 {
		t.Errorf("sync after the pull: pulled %v, pushed %v, conflicts %v, want none", rep.Pulled, rep.Pushed, rep.Conflicts)
	}
}
