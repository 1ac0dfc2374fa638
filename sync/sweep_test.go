package memsync

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/servertest"
	"github.com/teammemd/teammemd/sync/fsio"
)

// plant writes files into dir as a crash would have left them.
func plant(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for k, v := range files {
		p := filepath.Join(dir, filepath.FromSlash(k))
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte(v), 0o644))
	}
}

func TestFirstRunSweepsLeftovers(t *testing.T) {
	srv := servertest.Start(t)
	a := newPeer(t, srv.URL, srv.Token, nil)
	a.write(t, "known.md", "agreed\n")
	a.write(t, "sub/note.md", "agreed sub\n")
	a.sync(t)
	litter := map[string]string{
		".teammemd-0123456789abcdef.tmp":               "half a pull\n",
		"sub/.teammemd-fedcba9876543210.tmp":           "half a pull\n",
		".teammemd-case-0011223344556677.probe":        "",
		"sub/.teammemd-case-8899aabbccddeeff.probe":    "",
		"sub/.teammemd-aside-8899aabbccddeeff-note.md": "agreed sub\n",
		".teammemd-aside-0123456789abcdef-known.md":    "an edit a crash left aside\n",
	}
	plant(t, a.dir, litter)
	plant(t, a.dir, map[string]string{".teammemd-mine.md": "the user's own hidden file\n"})

	restarted := newTestEngine(t, srv.URL, srv.Token, a.dir, a.state, nil)
	rep, err := restarted.Sync(context.Background())
	if err != nil {
		t.Fatalf("Sync after a crash: %v", err)
	}
	for k := range litter {
		if _, err := os.Lstat(filepath.Join(a.dir, filepath.FromSlash(k))); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s after the first run: %v, want it removed", k, err)
		}
	}
	assertConflict(t, rep, "known.md", "an edit a crash left aside\n")
	if got := a.read(t, ".teammemd-mine.md"); got != "the user's own hidden file\n" {
		t.Errorf(".teammemd-mine.md = %q, want it left alone", got)
	}
	if got := a.read(t, "known.md"); got != "agreed\n" {
		t.Errorf("known.md = %q, want it untouched", got)
	}
	for k := range serverEntries(t, srv) {
		if strings.Contains(k, fsio.TempPrefix) {
			t.Errorf("server holds %s, want no leftover pushed", k)
		}
	}
	if n := len(serverEntries(t, srv)); n != 2 {
		t.Errorf("server holds %d entries, want 2", n)
	}
}

// TestNoProbeInTeamDirOnEachOp checks that no engine operation creates or
// removes a file in the team directory when there is nothing to write:
// every create or delete would move the directory's mtime off the date the
// test set. A name with no cased letter needs one probe, on the first run.
func TestNoProbeInTeamDirOnEachOp(t *testing.T) {
	ctx := context.Background()
	old := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
	for _, name := range []string{"team", "1234"} {
		t.Run(name, func(t *testing.T) {
			srv := servertest.Start(t)
			dir := filepath.Join(t.TempDir(), name)
			must(t, os.MkdirAll(dir, 0o755))
			eng := newTestEngine(t, srv.URL, srv.Token, dir, t.TempDir(), nil)
			ops := []struct {
				name string
				run  func() error
			}{
				{"first Pull", func() error { _, err := eng.Pull(ctx); return err }},
				{"Push", func() error { _, err := eng.Push(ctx); return err }},
				{"Unsent", func() error { _, err := eng.Unsent(); return err }},
				{"Pull", func() error { _, err := eng.Pull(ctx); return err }},
				{"Sync", func() error { _, err := eng.Sync(ctx); return err }},
			}
			for i, op := range ops {
				must(t, os.Chtimes(dir, old, old))
				if err := op.run(); err != nil {
					t.Fatalf("%s: %v", op.name, err)
				}
				fi, err := os.Stat(dir)
				must(t, err)
				if probed := !fi.ModTime().Equal(old); probed && (name == "team" || i > 0) {
					t.Errorf("%s created or removed a file in the team directory (mtime %v)", op.name, fi.ModTime())
				}
			}
			entries, err := os.ReadDir(dir)
			must(t, err)
			if len(entries) != 0 {
				t.Errorf("team directory holds %d entries, want none", len(entries))
			}
		})
	}
}

func TestLeftoverKind(t *testing.T) {
	tests := []struct {
		name string
		want int
	}{
		{".teammemd-0123456789abcdef.tmp", tempLeftover},
		{".teammemd-case-0123456789abcdef.probe", tempLeftover},
		{".teammemd-aside-0123456789abcdef-MEMORY.md", asideLeftover},
		{".teammemd-aside-0123456789abcdef-", notLeftover},
		{".teammemd-0123456789ABCDEF.tmp", notLeftover},
		{".teammemd-0123.tmp", notLeftover},
		{".teammemd-case-0123456789abcdef.tmp", notLeftover},
		{".teammemd-mine.md", notLeftover},
		{".teammemd-tmp-123", notLeftover},
		{"MEMORY.md", notLeftover},
	}
	for _, tt := range tests {
		if got := leftoverKind(tt.name); got != tt.want {
			t.Errorf("leftoverKind(%q) = %d, want %d", tt.name, got, tt.want)
		}
	}
}

func TestAsideNameRoundTrip(t *testing.T) {
	long := strings.Repeat("é", 126) + ".md" // 255 bytes
	tests := []struct {
		name  string
		whole bool
	}{
		{"MEMORY.md", true},
		{"notes.txt", true},
		{long, false},
	}
	for _, tt := range tests {
		aside := fsio.AsideName(tt.name)
		if len(aside) > fsio.MaxNameBytes {
			t.Errorf("fsio.AsideName(%.20q) is %d bytes, want at most %d", tt.name, len(aside), fsio.MaxNameBytes)
		}
		got, whole, ok := fsio.AsideTarget(aside)
		if !ok || whole != tt.whole || (whole && got != tt.name) || !strings.HasPrefix(tt.name, got) {
			t.Errorf("fsio.AsideTarget(fsio.AsideName(%.20q)) = %.20q, %v, %v; want the name back, whole %v", tt.name, got, whole, ok, tt.whole)
		}
		if leftoverKind(aside) != asideLeftover {
			t.Errorf("leftoverKind(fsio.AsideName(%.20q)) = %d, want asideLeftover", tt.name, leftoverKind(aside))
		}
	}
}
