package memsync

import (
	"slices"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/servertest"
)

// overCap lists the keys rep left out over the server's entry limit.
func overCap(rep Report) []string {
	var out []string
	for _, r := range rep.Refused {
		if strings.HasPrefix(r.Reason, "does not fit") {
			out = append(out, r.Key)
		}
	}
	return out
}

// fillRepo writes a.md to e.md to p and checks that a limit of three
// entries leaves d.md and e.md out.
func fillRepo(t *testing.T, p *peer) {
	t.Helper()
	for _, k := range []string{"a.md", "b.md", "c.md", "d.md", "e.md"} {
		p.write(t, k, k+"\n")
	}
	if got := overCap(p.sync(t)); !slices.Equal(got, []string{"d.md", "e.md"}) {
		t.Fatalf("left out over the limit = %v, want d.md and e.md", got)
	}
}

// TestOverCapSentOnceThereIsRoom: files left out over the server's entry
// limit are sent by the push of a deletion that makes room for them.
func TestOverCapSentOnceThereIsRoom(t *testing.T) {
	srv := servertest.Start(t, servertest.WithLimits(api.Limits{MaxEntries: 3}))
	a := newPeer(t, srv.URL, srv.Token, nil)
	fillRepo(t, a)
	a.remove(t, "a.md")
	rep := a.sync(t)
	if !slices.Equal(rep.Pushed, []string{"d.md"}) || !slices.Equal(overCap(rep), []string{"e.md"}) {
		t.Errorf("the push of a deletion: pushed %v, left out %v; want d.md pushed, e.md left out", rep.Pushed, overCap(rep))
	}
}

// TestOverCapSentOnceTheLimitIsRaised: files left out over the server's
// entry limit are sent once the server's admin raised the limit, though
// the engine learned the lower one; while the limit holds, a push sends
// at most one PUT to learn whether it still does.
func TestOverCapSentOnceTheLimitIsRaised(t *testing.T) {
	srv := servertest.Start(t, servertest.WithLimits(api.Limits{MaxEntries: 3}))
	a := newPeer(t, srv.URL, srv.Token, nil)
	fillRepo(t, a)
	rep := a.sync(t)
	if !slices.Equal(overCap(rep), []string{"d.md", "e.md"}) || rep.PUTs > 1 {
		t.Errorf("a push with no room: left out %v in %d PUTs, want d.md and e.md in at most 1", overCap(rep), rep.PUTs)
	}

	srv.RestartWith(t, servertest.WithLimits(api.Limits{MaxEntries: 10}))
	rep = a.sync(t)
	if !slices.Equal(rep.Pushed, []string{"d.md", "e.md"}) || len(rep.Refused) != 0 {
		t.Errorf("the push after the limit was raised: pushed %v, refused %+v; want d.md and e.md pushed", rep.Pushed, rep.Refused)
	}
	if got := keysOf(serverEntries(t, srv)); len(got) != 5 {
		t.Errorf("server holds %v after the limit was raised, want the five files", got)
	}
	if rep := a.sync(t); len(rep.Refused) != 0 || rep.PUTs != 0 {
		t.Errorf("last push: refused %+v in %d PUTs, want nothing left to send", rep.Refused, rep.PUTs)
	}
}
