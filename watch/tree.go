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

// tree keeps one watch per directory of the watched tree, and one on the
// root's parent to see the root itself come, go or be replaced. It is owned
// by the goroutine running Watcher.loop.
type tree struct {
	root     string
	parent   string
	log      *slog.Logger
	notifier Notifier
	dirs     map[string]bool // absolute paths of watched directories
	events   chan<- event
	// exhausted is set once a watch could not be added for lack of kernel
	// resources; rescans then run at the fallback interval.
	exhausted bool
	// missing is set while the root is not a directory (or a symlink to
	// one); rootInfo is the directory it resolved to when last watched.
	missing  bool
	rootInfo os.FileInfo
	// unborn is set while the root has not existed since the watch began:
	// on a first sync the engine is about to create it, which is no cause
	// for a warning.
	unborn bool
}

// send hands ev to the aggregator, which reads events until the tree is
// done with (Watcher.Run), so that none is lost at shutdown.
func (t *tree) send(ev event) { t.events <- ev }

// handle processes one notification.
func (t *tree) handle(ctx context.Context, ev fsnotify.Event) {
	if ev.Name == t.root || ev.Name == t.parent {
		if ev.Has(fsnotify.Create) || ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
			t.reattach(ctx)
		}
		return
	}
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
	t.send(event{path: rel})
}

// attach starts watching: the root's parent and, unless the root is
// missing, the tree.
func (t *tree) attach(ctx context.Context) error {
	t.watchParent()
	fi, err := os.Stat(t.root)
	if err != nil || !fi.IsDir() {
		t.missing, t.unborn = true, true
		t.log.Info("team directory does not exist yet; waiting for it", "dir", t.root)
		return nil
	}
	t.rootInfo = fi
	return t.addTree(ctx, t.root, false)
}

// watchParent watches the root's parent directory, whose events tell when
// the root is removed, moved or replaced. A parent that cannot be watched
// is missed only until the root's own events, a poll or a rescan.
func (t *tree) watchParent() {
	if t.parent == t.root {
		return
	}
	if err := t.notifier.Add(t.parent); err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.log.Debug("cannot watch the team directory's parent", "dir", t.parent, "err", err)
	}
}

// reattach watches the root afresh after it was created, removed, moved or
// replaced: every old watch is dropped (one left on a directory moved away
// would report its changes as the root's), the tree is walked again, and a
// rescan is asked for, since the root may now hold anything. While the root
// is missing it is polled for.
func (t *tree) reattach(ctx context.Context) {
	t.forget(t.root)
	t.watchParent()
	fi, err := os.Stat(t.root)
	if err != nil || !fi.IsDir() {
		if !t.missing {
			t.missing = true
			t.rootInfo = nil
			t.log.Warn("team directory missing; waiting for it", "dir", t.root)
			t.send(event{rescan: true})
		}
		return
	}
	back := t.missing
	t.missing = false
	t.rootInfo = fi
	if err := t.addTree(ctx, t.root, false); err != nil {
		t.log.Warn("cannot watch team directory", "dir", t.root, "err", err)
	}
	switch {
	case back && t.unborn:
		t.log.Info("team directory created", "dir", t.root)
	case back:
		t.log.Info("team directory is back", "dir", t.root)
	}
	t.unborn = false
	t.send(event{rescan: true})
}

// checkRoot reattaches the root when it came back, went missing, or now
// resolves to another directory than the one watched, as when the target
// of a symlink changes without an event here.
func (t *tree) checkRoot(ctx context.Context) {
	fi, err := os.Stat(t.root)
	present := err == nil && fi.IsDir()
	if present != t.missing && (!present || os.SameFile(fi, t.rootInfo)) {
		return
	}
	t.reattach(ctx)
}

// addTree watches dir and every directory below it. With report set, each
// file found is sent as a change. Ignored directories are skipped. The root
// is followed when it is a symlink; no other symlink is.
func (t *tree) addTree(ctx context.Context, dir string, report bool) error {
	start := dir
	if dir == t.root {
		// A trailing separator makes the walk's first Lstat follow a root
		// that is a symlink to a directory.
		start = dir + string(filepath.Separator)
	}
	return filepath.WalkDir(start, func(path string, d fs.DirEntry, err error) error {
		path = filepath.Clean(path)
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
				t.send(event{path: rel})
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

// rescan checks the root, re-adds any missing watches and asks for a full
// comparison.
func (t *tree) rescan(ctx context.Context) {
	if t.notifier != nil {
		t.exhausted = false
		t.checkRoot(ctx)
		if !t.missing {
			if err := t.addTree(ctx, t.root, false); err != nil {
				t.log.Warn("rescan failed", "dir", t.root, "err", err)
			}
		}
	}
	t.send(event{rescan: true})
}
