package memsync

import (
	"context"
	"fmt"
	"testing"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/servertest"
)

// movingRemote is a countingRemote that runs move before each named pull
// is sent, so the repo moves while the pull asks.
type movingRemote struct {
	countingRemote
	move func()
}

func (r *movingRemote) GetOnly(ctx context.Context, repo, ifNoneMatch, at string, keys []string) (api.FullResponse, bool, error) {
	if r.move != nil {
		r.move()
	}
	return r.countingRemote.GetOnly(ctx, repo, ifNoneMatch, at, keys)
}

// A pull that names its keys while a teammate's push goes on in many
// batches asks again for what each batch changed, and does not fall back
// to the whole repo while its rounds named fewer keys than the repo holds.
func TestPullChasesAPushOfManyBatchesByName(t *testing.T) {
	srv := servertest.Start(t)
	a := newPeer(t, srv.URL, srv.Token, nil)
	const notes, moves = 100, 12
	for i := range notes {
		a.write(t, fmt.Sprintf("n%03d.md", i), "first")
	}
	a.sync(t)
	c := testClient(t, srv.URL, srv.Token)
	rem := &movingRemote{countingRemote: countingRemote{Client: c}}
	b := peerWith(t, srv.URL, Options{Client: c, Remote: rem})
	b.sync(t)
	for i := range 10 {
		a.write(t, fmt.Sprintf("n%03d.md", i), "second")
	}
	a.sync(t)
	h, err := c.Hashes(context.Background(), testRepo)
	if err != nil {
		t.Fatal(err)
	}
	batch := 0
	rem.move = func() {
		if batch < moves {
			a.write(t, fmt.Sprintf("n%03d.md", 50+batch), "moved")
			a.sync(t)
			batch++
		}
	}
	rem.gets.Store(0)
	rem.pulls.Store(0)
	if _, err := b.eng.PullChanged(context.Background(), h); err != nil {
		t.Fatal(err)
	}
	if full, named := rem.gets.Load(), rem.pulls.Load()-rem.gets.Load(); full != 0 || named != moves+1 {
		t.Errorf("the pull sent %d whole pulls and %d named ones, want 0 and %d", full, named, moves+1)
	}
	for i, want := range map[int]string{0: "second", 9: "second", 50: "moved", 50 + moves - 1: "moved", 99: "first"} {
		if got := b.read(t, fmt.Sprintf("n%03d.md", i)); got != want {
			t.Errorf("b holds n%03d.md %q, want %q", i, got, want)
		}
	}
	if b.eng.Checksum() != a.eng.Checksum() {
		t.Errorf("b's checksum %s, want a's %s", b.eng.Checksum(), a.eng.Checksum())
	}
}

func TestOnlyChaseStopsWhenAWholePullCostsLess(t *testing.T) {
	if !(onlyChase{}).more(0) {
		t.Error("a first round is always allowed")
	}
	if !(onlyChase{requests: 3, keys: 99}).more(100) || (onlyChase{requests: 3, keys: 100}).more(100) {
		t.Error("want rounds while they named fewer keys than the repo holds")
	}
	if (onlyChase{requests: maxOnlyChase, keys: 1}).more(1000) {
		t.Errorf("want at most %d requests", maxOnlyChase)
	}
}
