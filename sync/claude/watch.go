package claude

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
)

// projectsQuiet is how long Claude Code's projects directory must be quiet
// after a change before WatchProjects reports it.
const projectsQuiet = 500 * time.Millisecond

// WatchProjects watches Claude Code's projects directory under home, each
// project directory in it and each project's memory directory, and calls
// changed once they are quiet after a project, a memory or team directory,
// or a session transcript was created, so that a project started while the
// daemon runs is discovered without a reload. While the projects directory
// does not exist, it watches home for it. It returns when ctx is done.
func WatchProjects(ctx context.Context, home string, log *slog.Logger, changed func()) error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("watch claude projects: %w", err)
	}
	defer w.Close()
	root := projectsDir(home)
	watchProjectDirs(w, home, root)
	quiet := time.NewTimer(time.Hour)
	quiet.Stop()
	defer quiet.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-w.Events:
			if !ok {
				return nil
			}
			if ev.Has(fsnotify.Create|fsnotify.Rename) && projectEvent(root, ev.Name) {
				watchProjectDirs(w, home, root)
				quiet.Reset(projectsQuiet)
			}
		case err, ok := <-w.Errors:
			if !ok {
				return nil
			}
			log.Warn("watching claude projects failed", "err", err)
		case <-quiet.C:
			changed()
		}
	}
}

// watchProjectDirs adds the projects directory, every project in it and
// its memory directory to w, or home while there is no projects
// directory. Adding a watched path again does nothing; a path that is
// gone is left out.
func watchProjectDirs(w *fsnotify.Watcher, home, root string) {
	entries, err := os.ReadDir(root)
	if err != nil {
		_ = w.Add(home)
		return
	}
	_ = w.Add(root)
	for _, e := range entries {
		if e.IsDir() {
			_ = w.Add(filepath.Join(root, e.Name()))
			_ = w.Add(filepath.Join(root, e.Name(), "memory"))
		}
	}
}

// projectEvent reports whether a path created under home can change what
// discovery finds: the projects directory, a project, its memory or team
// directory, or a session transcript.
func projectEvent(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return false
	}
	parts := strings.Split(filepath.ToSlash(rel), "/")
	switch len(parts) {
	case 1:
		return true // the projects directory itself, or a project
	case 2:
		return parts[1] == "memory" || strings.HasSuffix(parts[1], ".jsonl")
	case 3:
		return parts[1] == "memory" && parts[2] == "team"
	}
	return false
}
