package watch

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/fsnotify/fsnotify"
)

// tree keeps one watch per directory of the watched tree. It is owned by the
// goroutine running Watcher.loop.
type tree struct {
	root     string
	log      *slog.Logger
	notifier *fsnotify.Watcher
	dirs     map[string]bool // absolute paths of watched directories
	events   chan<- event
	// exhausted is set once a watch could not be added for lack of kernel
	// resources; rescans then run at the fallback interval.
	exhausted bool
}

// send hands ev to the aggregator unless ctx is done first.
func (t *tree) send(ctx context.Context, ev event) {
	select {
	case t.events <- ev:
	case <-ctx.Done():
	}
}

// handle processes one notification.
func (t *tree) handle(ctx context.Context, ev fsnotify.Event) {
	rel, ok := relPath(t.root, ev.Name)
	if !ok || IgnoredPath(rel) {
		return
	}
	if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
		t.forget(ev.Name)
	}
	if ev.Has(fsnotify.Create) {
		if fi, err := os.Lstat(ev.Name); err == nil && fi.IsDir() {
			// Files may have been created inside before the watch existed:
			// the walk reports each of them.
			if err := t.addTree(ctx, ev.Name, true); err != nil {
				t.log.Warn("cannot watch new directory", "dir", ev.Name, "err", err)
			}
		}
	}
	t.send(ctx, event{path: rel})
}

// addTree watches dir and every directory below it. With report set, each
// file found is sent as a change. Ignored directories are skipped.
func (t *tree) addTree(ctx context.Context, dir string, report bool) error {
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && path != dir {
				return nil // removed while walking
			}
			return err
		}
		rel, ok := relPath(t.root, path)
		if ok && IgnoredPath(rel) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.IsDir() {
			if report && ok {
				t.send(ctx, event{path: rel})
			}
			return ctx.Err()
		}
		return t.watch(path)
	})
}

// watch adds a watch for one directory. Running out of kernel watches is
// logged once with the setting to raise, and is not an error: rescans cover
// the directories left unwatched.
func (t *tree) watch(dir string) error {
	if t.dirs[dir] {
		return nil
	}
	err := t.notifier.Add(dir)
	switch {
	case err == nil:
		t.dirs[dir] = true
		return nil
	case isLimit(err):
		if !t.exhausted {
			t.log.Warn("out of file notification watches, falling back to periodic rescans",
				"dir", dir, "err", err, "hint", limitHint(err))
		}
		t.exhausted = true
		return nil
	case errors.Is(err, fs.ErrNotExist):
		return nil
	default:
		return err
	}
}

// forget drops the watches of path and everything below it. The kernel has
// already removed them for a deleted directory; only the bookkeeping remains.
func (t *tree) forget(path string) {
	prefix := path + string(filepath.Separator)
	for dir := range t.dirs {
		if dir == path || strings.HasPrefix(dir, prefix) {
			_ = t.notifier.Remove(dir) // already gone with the directory
			delete(t.dirs, dir)
		}
	}
}

// rescan re-adds any missing watches and asks for a full comparison.
func (t *tree) rescan(ctx context.Context) {
	if t.notifier != nil {
		t.exhausted = false
		if err := t.addTree(ctx, t.root, false); err != nil {
			t.log.Warn("rescan failed", "dir", t.root, "err", err)
		}
	}
	t.send(ctx, event{rescan: true})
}
