package memsync

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/teammemd/teammemd/server/servertest"
)

// createdIn watches dir for new names until the test ends; the returned
// func lists those created since the last call.
func createdIn(t *testing.T, dir string) func() []string {
	t.Helper()
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		t.Fatalf("inotify: %v", err)
	}
	t.Cleanup(func() { unix.Close(fd) })
	if _, err := unix.InotifyAddWatch(fd, dir, unix.IN_CREATE); err != nil {
		t.Fatalf("inotify watch %s: %v", dir, err)
	}
	return func() []string {
		var names []string
		buf := make([]byte, 64*1024)
		for {
			n, err := unix.Read(fd, buf)
			if errors.Is(err, unix.EAGAIN) || n <= 0 {
				return names
			}
			if err != nil {
				t.Fatalf("read inotify: %v", err)
			}
			for off := 0; off+unix.SizeofInotifyEvent <= n; {
				ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
				name := buf[off+unix.SizeofInotifyEvent : off+unix.SizeofInotifyEvent+int(ev.Len)]
				names = append(names, string(bytes.TrimRight(name, "\x00")))
				off += unix.SizeofInotifyEvent + int(ev.Len)
			}
		}
	}
}

// probes counts the case-sensitivity probe files among names.
func probes(names []string) int {
	n := 0
	for _, name := range names {
		if strings.HasPrefix(name, probePrefix) {
			n++
		}
	}
	return n
}

// TestCaseProbeOutsideTeamDir: whether the file system ignores case is
// learned from the team directory's own name in its parent, or from an
// ancestor's when the name has no cased letter, so no operation creates a
// probe file in it.
func TestCaseProbeOutsideTeamDir(t *testing.T) {
	srv := servertest.Start(t)
	ctx := context.Background()
	for _, tt := range []struct {
		name   string
		probes int
	}{
		{"team", 0},
		{"2024", 0},
	} {
		dir := filepath.Join(t.TempDir(), tt.name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		created := createdIn(t, dir)
		p := &peer{dir: dir, state: t.TempDir()}
		p.eng = newTestEngine(t, srv.URL, srv.Token, dir, p.state, nil)
		p.write(t, tt.name+".md", "a note in "+tt.name+"\n")
		var got []string
		for range 2 {
			if _, err := p.eng.Pull(ctx); err != nil {
				t.Fatal(err)
			}
			if _, err := p.eng.Push(ctx); err != nil {
				t.Fatal(err)
			}
			if _, err := p.eng.Unsent(); err != nil {
				t.Fatal(err)
			}
			p.sync(t)
			got = append(got, created()...)
		}
		if n := probes(got); n != tt.probes {
			t.Errorf("probe files created in a team directory named %s over 8 operations = %d, want %d (created: %v)", tt.name, n, tt.probes, got)
		}
	}
}

// TestCaseProbe: where no name tells, the probe file finds a
// case-sensitive file system as such and is removed.
func TestCaseProbe(t *testing.T) {
	dir := t.TempDir()
	created := createdIn(t, dir)
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	if ci, err := probeCaseInsensitive(root); ci || err != nil {
		t.Errorf("probeCaseInsensitive() = %v, %v, want false, nil", ci, err)
	}
	if n := probes(created()); n != 1 {
		t.Errorf("probeCaseInsensitive created %d probe files, want 1", n)
	}
	if left, err := os.ReadDir(dir); err != nil || len(left) != 0 {
		t.Errorf("directory after the probe holds %v (%v), want nothing", left, err)
	}
}

// TestCaseTwin: a name's twin in another case that is the same file means
// the file system ignores case; a missing or distinct twin, that it heeds
// case; a name with no cased letter tells nothing. A hard link stands in
// for the twin a case-insensitive file system shows.
func TestCaseTwin(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"linked.md", "distinct.md", "DISTINCT.MD", "alone.md", "2024"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Link(filepath.Join(dir, "linked.md"), filepath.Join(dir, "LINKED.MD")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name            string
		insensitive, ok bool
	}{
		{"linked.md", true, true},
		{"distinct.md", false, true},
		{"alone.md", false, true},
		{"2024", false, false},
		{"missing.md", false, false},
	}
	for _, tt := range tests {
		ci, ok := caseTwin(filepath.Join(dir, tt.name))
		if ci != tt.insensitive || ok != tt.ok {
			t.Errorf("caseTwin(%s) = %v, %v, want %v, %v", tt.name, ci, ok, tt.insensitive, tt.ok)
		}
	}
}
