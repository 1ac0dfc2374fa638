package memsync

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/servertest"
	"github.com/teammemd/teammemd/sync/internal/fault"
)

// pullRecorder is an onlyRecorder that also records how many values each
// pull of the whole repo brought (a Get the server answered with 200).
type pullRecorder struct {
	*onlyRecorder
	whole []int
}

func (r *pullRecorder) Get(ctx context.Context, repo, inm string) (api.FullResponse, bool, error) {
	resp, mod, err := r.Client.Get(ctx, repo, inm)
	if err == nil && mod {
		r.whole = append(r.whole, len(resp.Content.Entries))
	}
	return resp, mod, err
}

// recordedPeer is a peer whose engine pulls through a pullRecorder.
func recordedPeer(t *testing.T, srv *servertest.Server) (*peer, *pullRecorder) {
	t.Helper()
	p := newPeer(t, srv.URL, srv.Token, nil)
	rec := &pullRecorder{onlyRecorder: &onlyRecorder{Client: testClient(t, srv.URL, srv.Token)}}
	e, err := New(Config{Dir: p.dir, Repo: testRepo, Server: srv.URL, StateDir: p.state}, Options{Client: rec.Client, Remote: rec})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	p.eng = e
	return p, rec
}

// notedPeers starts a server and two peers that agree on n notes: a
// pushed them and b, whose pulls are recorded, pulled them.
func notedPeers(t *testing.T, n int) (*servertest.Server, *peer, *peer, *pullRecorder) {
	t.Helper()
	srv := servertest.Start(t)
	a := newPeer(t, srv.URL, srv.Token, nil)
	for i := range n {
		a.write(t, fmt.Sprintf("n%02d.md", i), fmt.Sprintf("note %d\n", i))
	}
	a.sync(t)
	b, rec := recordedPeer(t, srv)
	b.sync(t)
	return srv, a, b, rec
}

// TestFileInTheWayPulledByName: while a file of the user's stays in the
// way of a teammate's note (a symlink of its name), each pull asks the
// server for that note alone rather than for the whole repo, as every
// save's pull did before; the note arrives once the file is gone, and a
// teammate's other edits still arrive meanwhile.
func TestFileInTheWayPulledByName(t *testing.T) {
	_, a, b, rec := notedPeers(t, 20)
	must(t, os.Symlink(filepath.Join(t.TempDir(), "elsewhere.md"), filepath.Join(b.dir, "linked.md")))
	a.write(t, "linked.md", "the teammate's\n")
	a.sync(t)
	if rep := b.sync(t); !skippedFor(rep, "linked.md", "in the way") {
		t.Fatalf("Skipped = %+v, want linked.md skipped for the symlink in the way", rep.Skipped)
	}
	rec.whole, rec.asked = nil, nil
	for i := range 3 {
		b.write(t, "mine.md", fmt.Sprintf("b's edit %d\n", i))
		if rep := b.sync(t); !skippedFor(rep, "linked.md", "in the way") || !slices.Contains(rep.Pushed, "mine.md") {
			t.Fatalf("save %d: Skipped %+v, Pushed %v; want linked.md skipped again and mine.md pushed", i, rep.Skipped, rep.Pushed)
		}
	}
	if len(rec.whole) != 0 {
		t.Errorf("pulls of the whole repo while the symlink stays: %v values; want none", rec.whole)
	}
	if want := [][]string{{"linked.md"}, {"linked.md"}, {"linked.md"}}; !slices.EqualFunc(rec.asked, want, slices.Equal) {
		t.Errorf("pulls by name while the symlink stays = %v, want %v", rec.asked, want)
	}
	a.write(t, "n03.md", "note 3, edited\n")
	a.sync(t)
	b.sync(t)
	if got := b.read(t, "n03.md"); got != "note 3, edited\n" {
		t.Errorf("n03.md = %q, want the teammate's edit while the symlink stays", got)
	}
	must(t, os.Remove(filepath.Join(b.dir, "linked.md")))
	rec.whole, rec.asked = nil, nil
	if rep := b.sync(t); len(rep.Skipped) != 0 {
		t.Errorf("Skipped %+v once the symlink is gone", rep.Skipped)
	}
	if got := b.read(t, "linked.md"); got != "the teammate's\n" {
		t.Errorf("linked.md once the symlink is gone = %q, want the teammate's note", got)
	}
	if len(rec.whole) != 0 || len(rec.asked) != 1 {
		t.Errorf("the pull once the symlink is gone: whole pulls %v, by name %v; want linked.md by name", rec.whole, rec.asked)
	}
	if rep := b.sync(t); len(rep.Pulled) != 0 || len(rec.asked) != 1 {
		t.Errorf("the next sync pulled %v, by name %v; want nothing more", rep.Pulled, rec.asked)
	}
}

// TestUnreadableFileNoWholePulls: once a pull has met a file it cannot
// read (held back), each save's pull of a repo that has not changed takes
// the server's 304 and judges the held file from the state, where it
// pulled the whole repo each time before; a teammate's edit arrives
// meanwhile, and the file syncs once readable.
func TestUnreadableFileNoWholePulls(t *testing.T) {
	for _, d := range fault.Denials() {
		t.Run(d.Name, func(t *testing.T) {
			if d.Skip != "" {
				t.Skip(d.Skip)
			}
			srv, a, b, rec := notedPeers(t, 10)
			b.write(t, "n01.md", "note 1, edited on b\n")
			allow, err := d.Deny(filepath.Join(b.dir, "n01.md"))
			if err != nil {
				t.Fatal(err)
			}
			assertHeld(t, b.sync(t), "n01.md")
			a.write(t, "n02.md", "note 2, edited on a\n")
			a.sync(t)
			assertHeld(t, b.sync(t), "n01.md")
			if got := b.read(t, "n02.md"); got != "note 2, edited on a\n" {
				t.Errorf("n02.md = %q, want a's edit while n01.md is held", got)
			}
			rec.whole, rec.asked = nil, nil
			for i := range 3 {
				b.write(t, "mine.md", fmt.Sprintf("b's edit %d\n", i))
				rep := b.sync(t)
				assertHeld(t, rep, "n01.md")
				if !slices.Contains(rep.Pushed, "mine.md") {
					t.Fatalf("save %d pushed %v, want mine.md", i, rep.Pushed)
				}
			}
			if len(rec.whole) != 0 || len(rec.asked) != 0 {
				t.Errorf("while n01.md is held: whole pulls %v, by name %v; want neither", rec.whole, rec.asked)
			}
			if err := allow(); err != nil {
				t.Fatal(err)
			}
			if rep := b.sync(t); !slices.Contains(rep.Pushed, "n01.md") || len(rep.Held) != 0 {
				t.Errorf("once readable: pushed %v, held %v; want n01.md pushed", rep.Pushed, rep.Held)
			}
			if got := serverEntries(t, srv)["n01.md"]; got != "note 1, edited on b\n" {
				t.Errorf("server's n01.md = %q, want b's edit", got)
			}
		})
	}
}
