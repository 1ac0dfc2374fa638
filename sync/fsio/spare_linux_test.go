package fsio

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

func openRoot(t *testing.T) (string, *os.Root) {
	t.Helper()
	dir := t.TempDir()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	return dir, root
}

func inodeOf(t *testing.T, path string) uint64 {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Sys().(*syscall.Stat_t).Ino
}

// writeAside writes content to a file and keeps it as a spare.
func keepSpare(t *testing.T, dir string, p *Spares, name, content string) uint64 {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	ino := inodeOf(t, filepath.Join(dir, name))
	if !p.Keep(name) {
		t.Fatalf("Keep(%s) = false", name)
	}
	if _, err := os.Lstat(filepath.Join(dir, name)); !os.IsNotExist(err) {
		t.Fatalf("a kept file stays under its name: %v", err)
	}
	return ino
}

// A spare is written over in place, exactly, once a new temp file showed
// what one is like; before that a new file is made.
func TestSparesWriteOverAKeptFile(t *testing.T) {
	dir, root := openRoot(t)
	p := NewSpares(root)
	ino := keepSpare(t, dir, p, "old", "a longer old content of the note\n")
	first, err := p.CreateTemp([]byte("one"), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if inodeOf(t, filepath.Join(dir, first)) == ino {
		t.Error("a spare was used before any new temp file was seen")
	}
	second, err := p.CreateTemp([]byte("two"), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if inodeOf(t, filepath.Join(dir, second)) != ino {
		t.Error("the second write did not go into the spare")
	}
	if got, _ := os.ReadFile(filepath.Join(dir, second)); string(got) != "two" {
		t.Errorf("the spare holds %q, want %q", got, "two")
	}
	if err := p.Drain(); err != nil {
		t.Fatal(err)
	}
}

// A spare that is not what a new file would be (another link to it, a
// mode of its own, an extended attribute) is removed, never written
// over: the new content's file has none of that, and the other link keeps
// its content.
func TestSparesSkipFilesUnlikeANewOne(t *testing.T) {
	type sparecase struct {
		alter func(t *testing.T, dir, path string)
		check func(t *testing.T, dir, written string)
	}
	cases := map[string]sparecase{
		"hard link": {
			func(t *testing.T, dir, path string) {
				if err := os.Link(path, filepath.Join(dir, "elsewhere")); err != nil {
					t.Fatal(err)
				}
			},
			func(t *testing.T, dir, written string) {
				if b, err := os.ReadFile(filepath.Join(dir, "elsewhere")); err != nil || string(b) != "kept content\n" {
					t.Errorf("the other link holds %q, %v", b, err)
				}
				if inodeOf(t, written) == inodeOf(t, filepath.Join(dir, "elsewhere")) {
					t.Error("the linked file was written over")
				}
			},
		},
		"mode": {
			func(t *testing.T, dir, path string) {
				if err := os.Chmod(path, 0o600); err != nil {
					t.Fatal(err)
				}
			},
			func(t *testing.T, dir, written string) {
				if fi, err := os.Stat(written); err != nil || fi.Mode().Perm() == 0o600 {
					t.Errorf("the written file has the spare's mode: %v", err)
				}
			},
		},
		"xattr": {
			func(t *testing.T, dir, path string) {
				if err := unix.Setxattr(path, "user.teammemd-test", []byte("x"), 0); err != nil {
					t.Skipf("no user extended attributes here: %v", err)
				}
			},
			func(t *testing.T, dir, written string) {
				if n, err := unix.Listxattr(written, nil); err != nil || n != 0 {
					t.Errorf("the written file has the spare's extended attribute (%d bytes, %v)", n, err)
				}
			},
		},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			dir, root := openRoot(t)
			p := NewSpares(root)
			fresh, err := p.CreateTemp([]byte("fresh"), 0o644)
			if err != nil {
				t.Fatal(err)
			}
			root.Remove(fresh)
			path := filepath.Join(dir, "old")
			if err := os.WriteFile(path, []byte("kept content\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			c.alter(t, dir, path)
			if !p.Keep("old") {
				t.Fatal("Keep = false")
			}
			got, err := p.CreateTemp([]byte("new"), 0o644)
			if err != nil {
				t.Fatal(err)
			}
			c.check(t, dir, filepath.Join(dir, got))
			if b, _ := os.ReadFile(filepath.Join(dir, got)); string(b) != "new" {
				t.Errorf("the written file holds %q", b)
			}
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				if e.Name() != got && e.Name() != "elsewhere" {
					t.Errorf("left in the directory: %s", e.Name())
				}
			}
		})
	}
}

func TestSparesDrainAndNil(t *testing.T) {
	dir, root := openRoot(t)
	p := NewSpares(root)
	keepSpare(t, dir, p, "a", "1")
	keepSpare(t, dir, p, "b", "2")
	if err := p.Drain(); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("Drain left %d files", len(entries))
	}
	var none *Spares
	if none.Keep("a") || none.Drain() != nil {
		t.Error("a nil pool keeps nothing and drains nothing")
	}
}

// A file some process still has open, even only for reading, is not read
// as open nowhere else, so it is not kept as a spare: that reader would
// read the next note through it.
func TestReadSettledAloneSeesAReader(t *testing.T) {
	dir, root := openRoot(t)
	path := filepath.Join(dir, "old")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	reader, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	data, alone, err := ReadSettledAlone(root, "old")
	if err != nil || string(data) != "old" {
		t.Fatalf("ReadSettledAlone = %q, %v", data, err)
	}
	if alone {
		t.Error("a file open for reading elsewhere was read as open nowhere else")
	}
	reader.Close()
	if _, alone, err := ReadSettledAlone(root, "old"); err != nil || !alone {
		t.Errorf("the file, no longer open: alone %v, %v; want true", alone, err)
	}
}
