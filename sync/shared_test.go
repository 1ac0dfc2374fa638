package memsync

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/servertest"
	"github.com/teammemd/teammemd/sync/internal/hashcount"
)

// sharedKeys returns the keys SharedNotes found, and fails the test on an
// error.
func sharedKeys(t *testing.T, p *peer) ([]string, Shared) {
	t.Helper()
	sh, err := SharedNotes(p.eng.cfg)
	if err != nil {
		t.Fatalf("SharedNotes() error = %v", err)
	}
	var keys []string
	for _, n := range sh.Notes {
		keys = append(keys, n.Key)
	}
	return keys, sh
}

// TestSharedNotes: only the notes whose content the server holds as they
// are on disk are shared, each with its frontmatter's name and
// description; a note not pushed yet, edited since, personal, or refused
// by the server is counted, not listed, and a hidden file is neither.
func TestSharedNotes(t *testing.T) {
	srv := servertest.Start(t, servertest.WithScanner(servertest.MarkerScanner("SERVER-SECRET")))
	p := newPeer(t, srv.URL, srv.Token, nil)
	p.write(t, "topic.md", "---\nname: Topic\ndescription: \"how we deploy\"\ntype: project\n---\nbody\n")
	p.write(t, "sub/meta.md", "---\nname: meta\ndescription: the metadata shape\nmetadata:\n  type: project\n---\nbody\n")
	p.write(t, "MEMORY.md", "# Team memory\n- [Topic](topic.md)\n")
	p.write(t, "edited.md", "---\nname: edited\ndescription: before\n---\n")
	p.write(t, "personal.md", "---\nname: me\ndescription: mine\ntype: user\n---\n")
	p.write(t, "refused.md", "SERVER-SECRET\n")
	p.write(t, ".hidden.md", "hidden\n")
	p.sync(t)
	p.write(t, "edited.md", "---\nname: edited\ndescription: after\n---\n")
	p.write(t, "new.md", "---\nname: new\ndescription: not pushed\n---\n")
	keys, sh := sharedKeys(t, p)
	if want := []string{"MEMORY.md", "sub/meta.md", "topic.md"}; !slices.Equal(keys, want) || sh.Unshared != 4 {
		t.Fatalf("SharedNotes() = %q and %d unshared, want %q and 4 (edited, new, personal, refused)", keys, sh.Unshared, want)
	}
	want := map[string][2]string{"MEMORY.md": {"", ""}, "sub/meta.md": {"meta", "the metadata shape"}, "topic.md": {"Topic", "how we deploy"}}
	for _, n := range sh.Notes {
		if got := [2]string{n.Name, n.Description}; got != want[n.Key] || n.ModTime.IsZero() || !validChecksum(n.Checksum) {
			t.Errorf("SharedNotes() note %s = %+v, want name and description %q, a time and a checksum", n.Key, n, want[n.Key])
		}
	}
}

// TestSharedNotesHashesOnlyChanged: a note whose stat matches the state's
// index is not hashed; one touched since is, and still found shared.
func TestSharedNotesHashesOnlyChanged(t *testing.T) {
	srv := servertest.Start(t)
	p := newPeer(t, srv.URL, srv.Token, nil)
	for _, k := range []string{"a.md", "b.md", "c.md"} {
		p.write(t, k, "---\nname: "+k+"\ndescription: d\n---\n")
		setMtime(t, p, k, time.Now().Add(-time.Hour))
	}
	p.sync(t)
	hashes := hashcount.Count(t, nil)
	if keys, _ := sharedKeys(t, p); len(keys) != 3 || hashes.Load() != 0 {
		t.Errorf("SharedNotes() = %q after %d hashes, want 3 notes and no hash", keys, hashes.Load())
	}
	setMtime(t, p, "b.md", time.Now().Add(-time.Minute))
	if keys, _ := sharedKeys(t, p); len(keys) != 3 || hashes.Load() != 1 {
		t.Errorf("SharedNotes() after a touch = %q after %d hashes, want 3 notes and 1 hash", keys, hashes.Load())
	}
}

// TestSharedNotesState: a repo never synced is ErrNoState, a corrupt
// state an error naming it, left where it is.
func TestSharedNotesState(t *testing.T) {
	srv := servertest.Start(t)
	p := newPeer(t, srv.URL, srv.Token, nil)
	if _, err := SharedNotes(p.eng.cfg); !errors.Is(err, ErrNoState) {
		t.Errorf("SharedNotes(never synced) error = %v, want ErrNoState", err)
	}
	p.sync(t)
	other := p.eng.cfg
	other.Dir = filepath.Join(t.TempDir(), "none")
	if _, err := SharedNotes(other); err == nil {
		t.Error("SharedNotes(no team directory) error = nil, want one")
	}
	must(t, os.WriteFile(p.eng.StatePath(), []byte("{not json"), 0o600))
	_, err := SharedNotes(p.eng.cfg)
	if err == nil || errors.Is(err, ErrNoState) || !strings.Contains(err.Error(), p.eng.StatePath()) {
		t.Errorf("SharedNotes(corrupt state) error = %v, want one naming %s", err, p.eng.StatePath())
	}
	if data, _ := os.ReadFile(p.eng.StatePath()); string(data) != "{not json" {
		t.Errorf("corrupt state file = %q after SharedNotes, want it left as it was", data)
	}
}
