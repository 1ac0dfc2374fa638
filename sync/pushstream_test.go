package memsync

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestFileChecks: a push's checks give each key its file, or its error,
// in key order, whether one key is checked at once or several on the
// pool, and none once the push is stopped.
func TestFileChecks(t *testing.T) {
	dir := t.TempDir()
	for _, k := range []string{"a.md", "b.md", "c.md"} {
		must(t, os.WriteFile(filepath.Join(dir, k), []byte("note "+k), 0o644))
	}
	eng := newTestEngine(t, "http://127.0.0.1:1", "token", dir, t.TempDir(), nil)
	td, err := openTeamDir(dir)
	must(t, err)
	defer td.close()
	s := &session{Engine: eng, st: newState(testRepo, "127.0.0.1:1"), td: td, rep: &Report{}}
	stopped, cancel := context.WithCancel(context.Background())
	cancel()
	for _, keys := range [][]string{{"a.md"}, {"gone.md"}, {"a.md", "b.md", "gone.md", "c.md"}} {
		for _, ctx := range []context.Context{context.Background(), stopped} {
			checks := s.startChecks(ctx, keys, nil)
			for i, k := range keys {
				c, err := checks.get(i)
				switch {
				case ctx.Err() != nil:
					if !errors.Is(err, context.Canceled) {
						t.Errorf("%v, stopped: check of %s = %v, want context.Canceled", keys, k, err)
					}
				case k == "gone.md":
					if !errors.Is(err, fs.ErrNotExist) {
						t.Errorf("%v: check of %s = %v, want fs.ErrNotExist", keys, k, err)
					}
				case err != nil || string(c.data) != "note "+k || !c.text:
					t.Errorf("%v: check of %s = %q (text %v), %v; want %q", keys, k, c.data, c.text, err, "note "+k)
				}
			}
			checks.stop()
		}
	}
}
