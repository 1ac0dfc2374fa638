package watch

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// logged is a slog handler that signals each message logged on msgs.
type logged chan string

func (l logged) Enabled(context.Context, slog.Level) bool { return true }
func (l logged) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l logged) WithGroup(string) slog.Handler            { return l }

func (l logged) Handle(_ context.Context, r slog.Record) error {
	select {
	case l <- r.Message:
	default:
	}
	return nil
}

// await waits until msg is logged, at most 10s.
func (l logged) await(t *testing.T, msg string) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case m := <-l:
			if m == msg {
				return
			}
		case <-deadline:
			t.Fatalf("%q not logged within 10s", msg)
		}
	}
}

// runWatcher runs a watcher on dir, which need not exist, until the test
// ends, logging to log.
func runWatcher(t *testing.T, dir string, log logged) *Watcher {
	t.Helper()
	w, err := New(dir, Options{Debounce: 20 * time.Millisecond, Rescan: time.Hour, Logger: slog.New(log)})
	if err != nil {
		t.Fatalf("New(%q) error: %v", dir, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- w.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-errc; err != nil {
			t.Errorf("Run() = %v, want nil", err)
		}
	})
	return w
}

// untilRescanWith reads batches until one is a rescan and every wanted
// path was seen, writing probe first and again every 200ms while waiting:
// a write races the watch being added, so it is repeated.
func untilRescanWith(t *testing.T, w *Watcher, probe func(), want ...string) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	seen := map[string]bool{}
	rescan := false
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	probe()
	for {
		done := rescan
		for _, p := range want {
			done = done && seen[p]
		}
		if done {
			return
		}
		select {
		case b := <-w.Batches():
			rescan = rescan || b.Rescan
			for _, p := range b.Paths {
				seen[p] = true
			}
		case <-tick.C:
			probe()
		case <-deadline:
			t.Fatalf("after 10s: rescan %v, paths %v; want a rescan and %v", rescan, seen, want)
		}
	}
}

func TestWatcherRootSymlinkAtStart(t *testing.T) {
	base := t.TempDir()
	target := filepath.Join(base, "target")
	root := filepath.Join(base, "team")
	mkdir(t, target)
	if err := os.Symlink(target, root); err != nil {
		t.Fatal(err)
	}
	w := startWatcher(t, root, Options{Rescan: time.Hour})
	writeFile(t, filepath.Join(root, "sub", "a.md"), "x")
	if ok, got := collectUntil(t, w, within(10*time.Second), "sub/a.md"); !ok {
		t.Fatalf("batches = %v, want to contain sub/a.md", got)
	}
}

func TestWatcherFollowsRootSwappedForSymlink(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "team")
	other := filepath.Join(base, "other")
	mkdir(t, other)
	writeFile(t, filepath.Join(root, "sub", "old.md"), "x")
	w := startWatcher(t, root, Options{Rescan: time.Hour})
	if err := os.RemoveAll(root); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(other, root); err != nil {
		t.Fatal(err)
	}
	untilRescanWith(t, w, func() { writeFile(t, filepath.Join(root, "through.md"), "x") }, "through.md")
}

func TestWatcherFollowsRootMovedAside(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "team")
	writeFile(t, filepath.Join(root, "sub", "old.md"), "x")
	w := startWatcher(t, root, Options{Rescan: time.Hour})
	aside := filepath.Join(base, "aside")
	if err := os.Rename(root, aside); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(root, "sub", "new.md"), "x")
	untilRescanWith(t, w, func() { writeFile(t, filepath.Join(root, "later.md"), "x") }, "later.md")
	// The directory moved aside is no longer watched: its changes would be
	// taken for changes of the team directory.
	writeFile(t, filepath.Join(aside, "sub", "stale.md"), "x")
	writeFile(t, filepath.Join(root, "fresh.md"), "x")
	ok, got := collectUntil(t, w, within(10*time.Second), "fresh.md")
	if !ok {
		t.Fatalf("batches = %v, want to contain fresh.md", got)
	}
	for _, p := range got {
		if p == "sub/stale.md" {
			t.Errorf("batches = %v, want nothing from the directory moved aside", got)
		}
	}
}

func TestWatcherWaitsForMissingRoot(t *testing.T) {
	root := filepath.Join(t.TempDir(), "memory", "team")
	log := make(logged, 16)
	w := runWatcher(t, root, log)
	log.await(t, "team directory does not exist yet; waiting for it")
	untilRescanWith(t, w, func() { writeFile(t, filepath.Join(root, "a.md"), "x") })
	writeFile(t, filepath.Join(root, "b.md"), "x")
	if ok, got := collectUntil(t, w, within(10*time.Second), "b.md"); !ok {
		t.Fatalf("batches = %v, want to contain b.md", got)
	}
}

func TestWatcherReportsRootRemovedAndBack(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "team")
	mkdir(t, root)
	w := startWatcher(t, root, Options{Rescan: time.Hour})
	if err := os.Rename(root, filepath.Join(base, "gone")); err != nil {
		t.Fatal(err)
	}
	untilRescanWith(t, w, func() {})
	mkdir(t, root)
	untilRescanWith(t, w, func() {})
	writeFile(t, filepath.Join(root, "back.md"), "x")
	if ok, got := collectUntil(t, w, within(10*time.Second), "back.md"); !ok {
		t.Fatalf("batches = %v, want to contain back.md", got)
	}
}

func mkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}

// TestWatcherRecheckFindsLinkTargetGone removes the directory a symlinked
// root points to, which sends no notification for the root itself: a
// Recheck finds it missing, and the watcher polls until it is back.
func TestWatcherRecheckFindsLinkTargetGone(t *testing.T) {
	base := t.TempDir()
	target := filepath.Join(base, "target")
	root := filepath.Join(base, "team")
	mkdir(t, target)
	if err := os.Symlink(target, root); err != nil {
		t.Fatal(err)
	}
	log := make(logged, 16)
	w := startWatcher(t, root, Options{Rescan: time.Hour, Logger: slog.New(log)})
	if err := os.RemoveAll(target); err != nil {
		t.Fatal(err)
	}
	w.Recheck()
	log.await(t, "team directory missing; waiting for it")
	mkdir(t, target)
	log.await(t, "team directory is back")
	writeFile(t, filepath.Join(root, "back.md"), "x")
	if ok, got := collectUntil(t, w, within(10*time.Second), "back.md"); !ok {
		t.Fatalf("batches = %v, want to contain back.md", got)
	}
}

// leveled is a slog handler that signals each record's level and message.
type leveled chan slog.Record

func (l leveled) Enabled(context.Context, slog.Level) bool { return true }
func (l leveled) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l leveled) WithGroup(string) slog.Handler            { return l }

func (l leveled) Handle(_ context.Context, r slog.Record) error {
	select {
	case l <- r:
	default:
	}
	return nil
}

// await waits until msg is logged, at most 10s, and fails on any warning
// or any report of the root's return before it.
func (l leveled) await(t *testing.T, msg string) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case r := <-l:
			if r.Level >= slog.LevelWarn || r.Message == "team directory is back" {
				t.Errorf("logged %s %q for a team directory created after the watch began, want no warning and no return", r.Level, r.Message)
			}
			if r.Message == msg {
				return
			}
		case <-deadline:
			t.Fatalf("%q not logged within 10s", msg)
		}
	}
}

// A team directory that does not exist when the watch begins is about to
// be created by the first sync: no warning that it is missing, and its
// creation is not reported as its return.
func TestWatcherRootCreatedAfterStartIsNoWarning(t *testing.T) {
	root := filepath.Join(t.TempDir(), "memory", "team")
	log := make(leveled, 16)
	w, err := New(root, Options{Debounce: 20 * time.Millisecond, Rescan: time.Hour, Logger: slog.New(log)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- w.Run(ctx) }()
	defer func() {
		cancel()
		if err := <-errc; err != nil {
			t.Errorf("Run() = %v, want nil", err)
		}
	}()
	log.await(t, "team directory does not exist yet; waiting for it")
	untilRescanWith(t, w, func() { writeFile(t, filepath.Join(root, "a.md"), "x") })
	log.await(t, "team directory created")
}
