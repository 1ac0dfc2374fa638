package memsync

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/teammemd/teammemd/sync/fsio"
)

// forceCaseInsensitive has p's engine take its team directory for one on
// a file system that ignores case, as macOS's and Windows' do, from its
// next run on. The directory heeds case all the same: what the test sees
// is what the engine decides.
func forceCaseInsensitive(t testing.TB, p *peer) {
	t.Helper()
	fi, err := os.Stat(p.dir)
	if err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(p.dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	p.eng.known = knownDir{id: fi, caseInsensitive: true, racy: fsio.RacyWindow(root), swept: true}
}

// TestCaseInsensitivePullByName: on a file system that ignores case, a
// change wait's pull asks for the changed note alone, as elsewhere, where
// it pulled the whole repo.
func TestCaseInsensitivePullByName(t *testing.T) {
	srv, a, b, rec := notedPeers(t, 20)
	forceCaseInsensitive(t, b)
	a.write(t, "n05.md", "note 5, edited\n")
	a.sync(t)
	rec.whole, rec.asked = nil, nil
	rep, err := b.eng.PullChanged(context.Background(), hashesNow(t, srv))
	if err != nil {
		t.Fatalf("PullChanged: %v", err)
	}
	if !slices.Equal(rep.Pulled, []string{"n05.md"}) || b.read(t, "n05.md") != "note 5, edited\n" {
		t.Errorf("Pulled %v, n05.md = %q; want the edit", rep.Pulled, b.read(t, "n05.md"))
	}
	if len(rec.whole) != 0 || !slices.EqualFunc(rec.asked, [][]string{{"n05.md"}}, slices.Equal) {
		t.Errorf("whole pulls %v, by name %v; want n05.md by name alone", rec.whole, rec.asked)
	}
}

// TestCaseInsensitivePullByNameFindsTwins: a pull of some values alone
// finds the case twins a pull of the whole repo finds. Notes.md, agreed
// and deleted here but not yet on the server, still holds its name's fold
// against a teammate's new notes.md, as it does in a whole pull; and the
// pull names only the new note.
func TestCaseInsensitivePullByNameFindsTwins(t *testing.T) {
	srv, a, b, rec := notedPeers(t, 5)
	whole, _ := recordedPeer(t, srv)
	a.write(t, "Notes.md", "upper\n")
	a.sync(t)
	for _, p := range []*peer{b, whole} {
		p.sync(t)
		forceCaseInsensitive(t, p)
		must(t, os.Remove(filepath.Join(p.dir, "Notes.md")))
	}
	a.write(t, "notes.md", "lower\n")
	a.sync(t)
	rec.whole, rec.asked = nil, nil
	byName, err := b.eng.PullChanged(context.Background(), hashesNow(t, srv))
	if err != nil {
		t.Fatalf("PullChanged: %v", err)
	}
	all, err := whole.eng.Pull(context.Background())
	if err != nil {
		t.Fatalf("Pull: %v", err)
	}
	if !skippedFor(all, "notes.md", "differs only in case from Notes.md") {
		t.Fatalf("the whole pull skipped %+v, want notes.md as a case twin of Notes.md", all.Skipped)
	}
	if !slices.Equal(byName.Skipped, all.Skipped) || !slices.Equal(byName.Pulled, all.Pulled) || byName.PullAgain != all.PullAgain {
		t.Errorf("pull by name: pulled %v, skipped %+v, again %v; the whole pull: %v, %+v, %v",
			byName.Pulled, byName.Skipped, byName.PullAgain, all.Pulled, all.Skipped, all.PullAgain)
	}
	for _, p := range []*peer{b, whole} {
		if got := p.read(t, "notes.md"); got != "<missing>" {
			t.Errorf("notes.md = %q, want it not written next to the name Notes.md holds", got)
		}
	}
	if len(rec.whole) != 0 || !slices.EqualFunc(rec.asked, [][]string{{"notes.md"}}, slices.Equal) {
		t.Errorf("whole pulls %v, by name %v; want notes.md by name alone", rec.whole, rec.asked)
	}
}
