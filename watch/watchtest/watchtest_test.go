package watchtest

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/teammemd/teammemd/watch"
)

// next returns the next batch, failing if none comes within a minute of
// the bubble's clock.
func next(t *testing.T, w *watch.Watcher) watch.Batch {
	t.Helper()
	select {
	case b := <-w.Batches():
		return b
	case <-time.After(time.Minute):
		t.Fatal("no batch within a minute")
		return watch.Batch{}
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestWatcherOnPolling runs the real watcher on the polling notifier in a
// bubble: edits, a new directory with a file, a removal and two quick
// writes of the same size each arrive in one debounced batch.
func TestWatcherOnPolling(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, "a.md"), "a\n")
		w, err := watch.New(dir, watch.Options{Debounce: time.Second, MaxWait: 5 * time.Second, Notify: Polling(0)})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() { done <- w.Run(ctx) }()
		defer func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("Run() = %v", err)
			}
		}()
		synctest.Wait()

		steps := []struct {
			name string
			do   func()
			want []string
		}{
			{"edit", func() { writeFile(t, filepath.Join(dir, "a.md"), "b\n") }, []string{"a.md"}},
			{"new directory", func() { writeFile(t, filepath.Join(dir, "sub", "deep.md"), "d\n") }, []string{"sub", "sub/deep.md"}},
			{"file in the new directory", func() { writeFile(t, filepath.Join(dir, "sub", "more.md"), "m\n") }, []string{"sub/more.md"}},
			{"removal", func() {
				if err := os.Remove(filepath.Join(dir, "a.md")); err != nil {
					t.Fatal(err)
				}
			}, []string{"a.md"}},
			{"ignored editor file", func() {
				writeFile(t, filepath.Join(dir, ".x.swp"), "x")
				writeFile(t, filepath.Join(dir, "b.md"), "b\n")
			}, []string{"b.md"}},
		}
		for _, s := range steps {
			s.do()
			b := next(t, w)
			if !slices.Equal(b.Paths, s.want) || b.Rescan {
				t.Errorf("%s: batch = %+v, want paths %q", s.name, b, s.want)
			}
		}
	})
}

// TestQuickRewritesSeen: a rewrite of the same size right after a change
// is seen, since the comparison hashes content rather than trusting
// timestamps.
func TestQuickRewritesSeen(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		p := newPoller(DefaultInterval)
		defer p.Close()
		writeFile(t, filepath.Join(dir, "a.md"), "v1\n")
		if err := p.Add(dir); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, "a.md"), "v2\n")
		time.Sleep(DefaultInterval)
		synctest.Wait()
		select {
		case ev := <-p.Events():
			if ev.Name != filepath.Join(dir, "a.md") || !ev.Has(fsnotify.Write) {
				t.Errorf("event = %v, want a write of a.md", ev)
			}
		default:
			t.Error("no event for a same-size rewrite")
		}
	})
}

func TestAddMissing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newPoller(DefaultInterval)
		defer p.Close()
		if err := p.Add(filepath.Join(t.TempDir(), "missing")); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Add(missing) = %v, want a not-exist error", err)
		}
	})
}
