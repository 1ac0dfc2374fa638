package watch

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// startWatcher runs a watcher on dir with a short debounce and returns it
// with a stop function that waits for Run to return.
func startWatcher(t *testing.T, dir string, opts Options) *Watcher {
	t.Helper()
	if opts.Debounce == 0 {
		opts.Debounce = 20 * time.Millisecond
	}
	w, err := New(dir, opts)
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
	// Let the initial watches be added before the test writes: a harmless
	// probe file shows the watcher is live.
	probe := filepath.Join(dir, "probe.txt")
	deadline := time.After(10 * time.Second)
	for i := 0; ; i++ {
		writeFile(t, probe, "probe")
		if seen, _ := collectUntil(t, w, time.After(200*time.Millisecond), "probe.txt"); seen {
			break
		}
		select {
		case <-deadline:
			t.Fatal("watcher never reported probe.txt")
		default:
		}
	}
	return w
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

// collectUntil reads batches until every wanted path has been seen or
// timeout fires; it returns whether all were seen and every path reported.
func collectUntil(t *testing.T, w *Watcher, timeout <-chan time.Time, want ...string) (bool, []string) {
	t.Helper()
	var all []string
	missing := slices.Clone(want)
	for len(missing) > 0 {
		select {
		case b := <-w.Batches():
			all = append(all, b.Paths...)
			missing = slices.DeleteFunc(missing, func(p string) bool { return slices.Contains(b.Paths, p) })
		case <-timeout:
			return false, all
		}
	}
	return true, all
}

func within(d time.Duration) <-chan time.Time { return time.After(d) }

func TestWatcherReportsChanges(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string)
		do    func(t *testing.T, dir string)
		want  []string
	}{
		{
			name: "file in root",
			do:   func(t *testing.T, dir string) { writeFile(t, filepath.Join(dir, "MEMORY.md"), "x") },
			want: []string{"MEMORY.md"},
		},
		{
			name: "file created with its new directory",
			do:   func(t *testing.T, dir string) { writeFile(t, filepath.Join(dir, "sub", "notes.md"), "x") },
			want: []string{"sub/notes.md"},
		},
		{
			name: "nested new directories",
			do:   func(t *testing.T, dir string) { writeFile(t, filepath.Join(dir, "a", "b", "c", "deep.md"), "x") },
			want: []string{"a/b/c/deep.md"},
		},
		{
			name:  "file in existing subdirectory",
			setup: func(t *testing.T, dir string) { writeFile(t, filepath.Join(dir, "old", "keep.md"), "x") },
			do:    func(t *testing.T, dir string) { writeFile(t, filepath.Join(dir, "old", "keep.md"), "y") },
			want:  []string{"old/keep.md"},
		},
		{
			name:  "file deleted",
			setup: func(t *testing.T, dir string) { writeFile(t, filepath.Join(dir, "gone.md"), "x") },
			do: func(t *testing.T, dir string) {
				if err := os.Remove(filepath.Join(dir, "gone.md")); err != nil {
					t.Fatal(err)
				}
			},
			want: []string{"gone.md"},
		},
		{
			name: "directory moved in",
			do: func(t *testing.T, dir string) {
				outside := filepath.Join(t.TempDir(), "moved")
				writeFile(t, filepath.Join(outside, "in.md"), "x")
				if err := os.Rename(outside, filepath.Join(dir, "moved")); err != nil {
					t.Fatal(err)
				}
			},
			want: []string{"moved", "moved/in.md"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if tt.setup != nil {
				tt.setup(t, dir)
			}
			w := startWatcher(t, dir, Options{})
			tt.do(t, dir)
			if ok, got := collectUntil(t, w, within(10*time.Second), tt.want...); !ok {
				t.Errorf("batches = %v, want to contain %v", got, tt.want)
			}
		})
	}
}

func TestWatcherRemovedDirectory(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "sub", "a.md"), "x")
	w := startWatcher(t, dir, Options{})
	if err := os.RemoveAll(filepath.Join(dir, "sub")); err != nil {
		t.Fatal(err)
	}
	if ok, got := collectUntil(t, w, within(10*time.Second), "sub"); !ok {
		t.Fatalf("batches = %v, want to contain sub", got)
	}
	// The same name recreated is watched again.
	writeFile(t, filepath.Join(dir, "sub", "b.md"), "x")
	if ok, got := collectUntil(t, w, within(10*time.Second), "sub/b.md"); !ok {
		t.Fatalf("batches = %v, want to contain sub/b.md", got)
	}
	writeFile(t, filepath.Join(dir, "sub", "c.md"), "x")
	if ok, got := collectUntil(t, w, within(10*time.Second), "sub/c.md"); !ok {
		t.Fatalf("batches = %v, want to contain sub/c.md", got)
	}
}

func TestWatcherIgnoresNoise(t *testing.T) {
	dir := t.TempDir()
	w := startWatcher(t, dir, Options{})
	for _, name := range []string{".MEMORY.md.swp", "MEMORY.md~", "4913", ".#MEMORY.md", "#MEMORY.md#", ".hidden/x.md", ".teammemd-tmp"} {
		writeFile(t, filepath.Join(dir, name), "noise")
	}
	writeFile(t, filepath.Join(dir, "real.md"), "x")
	ok, got := collectUntil(t, w, within(10*time.Second), "real.md")
	if !ok {
		t.Fatalf("batches = %v, want to contain real.md", got)
	}
	for _, p := range got {
		if p != "real.md" && p != "probe.txt" {
			t.Errorf("batch path %q reported, want only real.md", p)
		}
	}
}

func TestWatcherPeriodicRescan(t *testing.T) {
	dir := t.TempDir()
	w := startWatcher(t, dir, Options{Rescan: 50 * time.Millisecond})
	timeout := within(10 * time.Second)
	for {
		select {
		case b := <-w.Batches():
			if b.Rescan {
				return
			}
		case <-timeout:
			t.Fatal("no rescan batch within 10s")
		}
	}
}

func TestRelPath(t *testing.T) {
	root := filepath.FromSlash("/r/team")
	tests := []struct {
		path   string
		want   string
		wantOK bool
	}{
		{"/r/team/a.md", "a.md", true},
		{"/r/team/sub/a.md", "sub/a.md", true},
		{"/r/team", "", false},
		{"/r/other", "", false},
		{"/r/team..x/a", "", false},
	}
	for _, tt := range tests {
		got, ok := relPath(root, filepath.FromSlash(tt.path))
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("relPath(%q) = %q, %v, want %q, %v", tt.path, got, ok, tt.want, tt.wantOK)
		}
	}
}

func TestLimitHint(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{fmt.Errorf("add: %w", syscall.ENOSPC), "fs.inotify.max_user_watches"},
		{fmt.Errorf("init: %w", syscall.EMFILE), "fs.inotify.max_user_instances"},
		{os.ErrPermission, ""},
	}
	for _, tt := range tests {
		got := limitHint(tt.err)
		if tt.want == "" && got != "" || !strings.Contains(got, tt.want) {
			t.Errorf("limitHint(%v) = %q, want it to name %q", tt.err, got, tt.want)
		}
		if isLimit(tt.err) != (tt.want != "") {
			t.Errorf("isLimit(%v) = %v, want %v", tt.err, !(tt.want != ""), tt.want != "")
		}
	}
}
