package memsync

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/teammemd/teammemd/server/servertest"
)

// bornSince returns how many files of dir were created at or after
// since, by their birth time, and how many files dir holds; it skips t
// where the file system keeps no birth time.
func bornSince(t *testing.T, dir string, since time.Time) (born, files int) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		var st unix.Statx_t
		if err := unix.Statx(unix.AT_FDCWD, filepath.Join(dir, e.Name()), unix.AT_SYMLINK_NOFOLLOW, unix.STATX_BTIME, &st); err != nil {
			t.Fatal(err)
		}
		if st.Mask&unix.STATX_BTIME == 0 {
			t.Skip("the file system keeps no birth time")
		}
		if !time.Unix(st.Btime.Sec, int64(st.Btime.Nsec)).Before(since) {
			born++
		}
		files++
	}
	return born, files
}

// A pull that replaces many notes writes most of them into the files it
// displaced, instead of creating a file for each and removing the one it
// displaced; what each note holds is the server's, nothing is left behind,
// and a note the user also linked elsewhere keeps that other link as it
// was.
func TestPullWritesIntoTheFilesItDisplaced(t *testing.T) {
	srv := servertest.Start(t)
	a := newPeer(t, srv.URL, srv.Token, nil)
	b := newPeer(t, srv.URL, srv.Token, nil)
	const notes = 40
	for i := range notes {
		a.write(t, fmt.Sprintf("n%02d.md", i), strings.Repeat("first ", i+1))
	}
	a.sync(t)
	b.sync(t)
	linked := filepath.Join(t.TempDir(), "linked.md")
	if err := os.Link(filepath.Join(b.dir, "n00.md"), linked); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond) // past the clock tick of the first pull's files
	since := time.Now()
	for i := range notes {
		a.write(t, fmt.Sprintf("n%02d.md", i), strings.Repeat("second ", notes-i))
	}
	a.sync(t)
	if rep := b.sync(t); len(rep.Pulled) != notes {
		t.Fatalf("pulled %d notes, want %d", len(rep.Pulled), notes)
	}
	created, files := bornSince(t, b.dir, since)
	if created > writeWorkers+1 {
		t.Errorf("the pull created %d new files for %d notes, want at most %d", created, notes, writeWorkers+1)
	}
	for i := range notes {
		if got, want := b.read(t, fmt.Sprintf("n%02d.md", i)), strings.Repeat("second ", notes-i); got != want {
			t.Errorf("n%02d.md holds %q, want %q", i, got, want)
		}
	}
	if files != notes {
		t.Errorf("the team directory holds %d files, want the %d notes alone", files, notes)
	}
	if got, _ := os.ReadFile(linked); string(got) != "first " {
		t.Errorf("the other link of n00.md holds %q, want what it held", got)
	}
}
