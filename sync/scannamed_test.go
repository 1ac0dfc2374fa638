package memsync

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/teammemd/teammemd/sync/fsio"

	"github.com/teammemd/teammemd/server/servertest"
)

// namedDir is a team directory changed at random, with the paths a
// watcher would name for each change.
type namedDir struct {
	t     *testing.T
	dir   string
	rng   *rand.Rand
	named []string
}

// candidates are the paths the random changes pick from: notes at the
// root and in directories, a hidden directory, a file of the wrong kind,
// a name no key may have.
var candidates = []string{
	"a.md", "b.txt", "c.md", "notes/x.md", "notes/y.md", "notes/deep/z.md",
	"other/w.md", ".hidden/h.md", "skip.json", "notes/CON.md", "notes/bad\x01.md",
}

func (d *namedDir) name(p string) { d.named = append(d.named, p) }

// change makes one random change and names what it touched.
func (d *namedDir) change() {
	p := candidates[d.rng.IntN(len(candidates))]
	full := filepath.Join(d.dir, filepath.FromSlash(p))
	op := d.rng.IntN(7)
	if op != 3 && op != 4 {
		os.Remove(full) // a write never goes through a link to another note
	}
	switch op {
	case 0, 1, 2:
		must(d.t, os.MkdirAll(filepath.Dir(full), 0o755))
		must(d.t, os.WriteFile(full, []byte(fmt.Sprintf("note %d\n", d.rng.IntN(1000))), 0o644))
		d.name(p)
		for dir := path.Dir(p); dir != "."; dir = path.Dir(dir) {
			d.name(dir)
		}
	case 3:
		if os.Remove(full) == nil {
			d.name(p)
		}
	case 4: // a directory moved away, or back
		from, to := "notes", "moved"
		if d.rng.IntN(2) == 0 {
			from, to = to, from
		}
		if os.Rename(filepath.Join(d.dir, from), filepath.Join(d.dir, to)) == nil {
			d.name(from)
			d.name(to)
		}
	case 5: // a link where a note was
		os.Remove(full)
		must(d.t, os.MkdirAll(filepath.Dir(full), 0o755))
		os.Symlink("a.md", full)
		d.name(p)
	case 6: // too large to sync
		must(d.t, os.MkdirAll(filepath.Dir(full), 0o755))
		must(d.t, os.WriteFile(full, make([]byte, MaxFileBytes+1), 0o644))
		d.name(p)
	}
}

// A scan of the named paths alone finds what a scan of the whole
// directory finds, after each of many random changes: files with their
// index entries, and what cannot sync.
func TestScanNamedMatchesWholeScan(t *testing.T) {
	for seed := range uint64(40) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			d := &namedDir{t: t, dir: t.TempDir(), rng: rand.New(rand.NewPCG(seed, 1))}
			for range 12 {
				d.change()
			}
			for i := range 20 { // keep enough files that a named scan is worth it
				must(t, os.WriteFile(filepath.Join(d.dir, fmt.Sprintf("base%02d.md", i)), []byte("base"), 0o644))
			}
			td, err := openTeamDir(d.dir)
			must(t, err)
			defer td.close()
			later := time.Now().Add(time.Hour) // no entry is racy
			prev, err := td.scanLocal(nil, later)
			must(t, err)
			for step := range 30 {
				d.named = nil
				for range 1 + d.rng.IntN(3) {
					d.change()
				}
				got, err := td.scanNamed(prev, d.named, later)
				want, werr := td.scanLocal(prev.files, later)
				must(t, werr)
				if err != nil {
					t.Fatalf("step %d: scanNamed(%q) = %v", step, d.named, err)
				}
				if !reflect.DeepEqual(got.files, want.files) || !sameSkipped(got.skipped, want.skipped) {
					t.Fatalf("step %d, named %q:\n named scan %v\n skipped %v\n whole scan %v\n skipped %v",
						step, d.named, slices.Sorted(maps.Keys(got.files)), got.skipped, slices.Sorted(maps.Keys(want.files)), want.skipped)
				}
				prev = got
			}
		})
	}
}

func sameSkipped(a, b []Skipped) bool {
	sorted := func(s []Skipped) []Skipped {
		s = slices.Clone(s)
		slices.SortFunc(s, func(x, y Skipped) int { return strings.Compare(x.Key, y.Key) })
		return s
	}
	return slices.Equal(sorted(a), sorted(b))
}

// A file hashed too soon after its mtime is hashed again by a named scan
// that does not name it, as the whole scan would.
func TestScanNamedRehashesRacyEntries(t *testing.T) {
	dir := t.TempDir()
	for i := range 10 {
		must(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("n%d.md", i)), []byte("one"), 0o644))
	}
	td, err := openTeamDir(dir)
	must(t, err)
	defer td.close()
	fi, err := os.Stat(filepath.Join(dir, "n0.md"))
	must(t, err)
	// The scan runs in n0.md's own clock tick, however late the machine
	// reaches it.
	prev, err := td.scanLocal(nil, fi.ModTime())
	must(t, err)
	if !prev.files["n0.md"].Racy {
		t.Fatal("a file scanned in its save's clock tick was not indexed as racy")
	}
	must(t, os.WriteFile(filepath.Join(dir, "n0.md"), []byte("two"), 0o644))
	must(t, os.Chtimes(filepath.Join(dir, "n0.md"), fi.ModTime(), fi.ModTime()))
	got, err := td.scanNamed(prev, nil, time.Now().Add(time.Hour))
	must(t, err)
	if got.files["n0.md"].Hash != entrySum([]byte("two")) {
		t.Error("a racy entry kept its old hash through a named scan")
	}
}

// Once the watcher's first rescan is noted and a whole scan saved, a push
// looks only at what the watcher named: an edit it was not told of waits
// for the next rescan, which finds it.
func TestPushScansOnlyNamedPaths(t *testing.T) {
	srv := servertest.Start(t)
	p := newPeer(t, srv.URL, srv.Token, nil)
	for i := range 10 {
		p.write(t, fmt.Sprintf("n%d.md", i), "one")
		backdate(t, p.dir, fmt.Sprintf("n%d.md", i))
	}
	p.eng.NoteChanges(nil, true)
	p.sync(t)
	ctx := context.Background()

	p.write(t, "n1.md", "named")
	p.write(t, "n2.md", "not named")
	backdate(t, p.dir, "n1.md", "n2.md")
	p.eng.NoteChanges([]string{"n1.md"}, false)
	rep, err := p.eng.Push(ctx)
	if err != nil || !slices.Equal(rep.Pushed, []string{"n1.md"}) {
		t.Fatalf("Push = pushed %v, %v; want the named n1.md alone", rep.Pushed, err)
	}
	p.eng.NoteChanges(nil, true)
	rep, err = p.eng.Push(ctx)
	if err != nil || !slices.Equal(rep.Pushed, []string{"n2.md"}) {
		t.Fatalf("Push after a rescan = pushed %v, %v; want n2.md", rep.Pushed, err)
	}
}

// An engine no watcher tells of changes, or whose state another process
// saved, scans the whole directory.
func TestScanIsWholeWithoutTheWatcher(t *testing.T) {
	srv := servertest.Start(t)
	p := newPeer(t, srv.URL, srv.Token, nil)
	for i := range 10 {
		p.write(t, fmt.Sprintf("n%d.md", i), "one")
	}
	p.sync(t)
	p.write(t, "n3.md", "two")
	backdate(t, p.dir, "n3.md")
	if rep := p.sync(t); !slices.Equal(rep.Pushed, []string{"n3.md"}) {
		t.Fatalf("untracked engine pushed %v, want n3.md", rep.Pushed)
	}

	p.eng.NoteChanges(nil, true)
	p.sync(t)
	other := newTestEngine(t, srv.URL, srv.Token, p.dir, p.state, nil)
	p.write(t, "n4.md", "two")
	backdate(t, p.dir, "n4.md")
	if _, err := other.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	p.write(t, "n5.md", "two")
	backdate(t, p.dir, "n5.md")
	rep, err := p.eng.Push(context.Background())
	if err != nil || !slices.Equal(rep.Pushed, []string{"n5.md"}) {
		t.Fatalf("after another engine saved the state, Push = pushed %v, %v; want n5.md", rep.Pushed, err)
	}
}

// backdate moves the files' mtimes a minute back, so their hashes are not
// racy and a named scan keeps them.
func backdate(t *testing.T, dir string, keys ...string) {
	t.Helper()
	old := time.Now().Add(-time.Minute)
	for _, k := range keys {
		must(t, os.Chtimes(filepath.Join(dir, filepath.FromSlash(k)), old, old))
	}
}

// On a file system with fine timestamps, a file hashed more than the
// racy window after its mtime is trusted by size, mtime and inode from
// then on; one hashed sooner is hashed again. Where the window is the slow
// one, both are racy.
func TestScanTrustsAHashTakenPastTheFileSystemsWindow(t *testing.T) {
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "n.md"), []byte("one"), 0o644))
	td, err := openTeamDir(dir)
	must(t, err)
	defer td.close()
	td.racy = fsio.RacyWindow(td.root)
	fi, err := os.Stat(filepath.Join(dir, "n.md"))
	must(t, err)
	soon, err := td.scanLocal(nil, fi.ModTime().Add(td.racy/2))
	must(t, err)
	if !soon.files["n.md"].Racy {
		t.Error("a file hashed within the racy window was not indexed as racy")
	}
	later, err := td.scanLocal(nil, fi.ModTime().Add(500*time.Millisecond))
	must(t, err)
	if want := td.racy > 500*time.Millisecond; later.files["n.md"].Racy != want {
		t.Errorf("a file hashed 500 ms after its mtime, on a file system whose racy window is %v: racy %v, want %v", td.racy, later.files["n.md"].Racy, want)
	}
	if td.racy != fsio.FineRacyWindow {
		t.Skipf("the test directory's file system has the slow racy window (%v)", td.racy)
	}
}

// dropNamed drops the entries named and, for a name that is no file of
// the index, every entry under it; nothing else.
func TestDropNamed(t *testing.T) {
	index := func() map[string]IndexEntry {
		return map[string]IndexEntry{"a.md": {}, "b.md": {}, "d/x.md": {}, "d/y.md": {}, "d.md": {}, "e/z.md": {}}
	}
	for _, tt := range []struct {
		named []string
		want  []string
	}{
		{[]string{"a.md"}, []string{"b.md", "d.md", "d/x.md", "d/y.md", "e/z.md"}},
		{[]string{"a.md", "d.md"}, []string{"b.md", "d/x.md", "d/y.md", "e/z.md"}},
		{[]string{"d"}, []string{"a.md", "b.md", "d.md", "e/z.md"}},
		{[]string{"a.md", "e"}, []string{"b.md", "d.md", "d/x.md", "d/y.md"}},
		{[]string{"new.md"}, []string{"a.md", "b.md", "d.md", "d/x.md", "d/y.md", "e/z.md"}},
	} {
		files := index()
		named := map[string]bool{}
		for _, n := range tt.named {
			named[n] = true
		}
		dropNamed(files, named)
		if got := slices.Sorted(maps.Keys(files)); !slices.Equal(got, tt.want) {
			t.Errorf("dropNamed(%q) left %q, want %q", tt.named, got, tt.want)
		}
	}
}
