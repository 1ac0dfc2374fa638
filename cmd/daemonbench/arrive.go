package main

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"
)

// arrivals sees files land in the teammate's directory through inotify,
// as a user's editor would, and times the moment each holds the content
// expected (its SHA-256), whichever daemon wrote it.
type arrivals struct {
	root string
	n    *fsnotify.Watcher
}

// watchArrivals watches root and every directory under it, now and as
// they are created.
func watchArrivals(root string) (*arrivals, error) {
	n, err := fsnotify.NewBufferedWatcher(1 << 16)
	if err != nil {
		return nil, fmt.Errorf("watch %s: %w", root, err)
	}
	a := &arrivals{root: root, n: n}
	if err := a.addTree(root); err != nil {
		n.Close()
		return nil, err
	}
	return a, nil
}

func (a *arrivals) close() error { return a.n.Close() }

// addTree watches dir and the directories under it.
func (a *arrivals) addTree(dir string) error {
	return filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || !e.IsDir() {
			return err
		}
		if err := a.n.Add(p); err != nil {
			return fmt.Errorf("watch %s: %w", p, err)
		}
		return nil
	})
}

// drain drops the events of earlier measurements.
func (a *arrivals) drain() {
	for {
		select {
		case <-a.n.Events:
		case <-a.n.Errors:
		default:
			return
		}
	}
}

// wait waits until every file of want (relative path -> SHA-256 of the
// content) holds its content, and returns when the last one did: the
// moment the event that showed it was read. A file already right when
// wait starts counts from then. alive is asked now and then whether the
// processes that should deliver are still running.
func (a *arrivals) wait(ctx context.Context, want map[string][32]byte, limit time.Duration, alive func(context.Context) error) (time.Time, error) {
	left := make(map[string][32]byte, len(want))
	for rel, sum := range want {
		left[filepath.Join(a.root, filepath.FromSlash(rel))] = sum
	}
	var last time.Time
	check := func(path string) {
		if sum, ok := left[path]; ok && holds(path, sum) {
			delete(left, path)
			last = time.Now()
		}
	}
	for path := range left {
		check(path)
	}
	deadline := time.NewTimer(limit)
	defer deadline.Stop()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for len(left) > 0 {
		select {
		case <-ctx.Done():
			return time.Time{}, ctx.Err()
		case <-deadline.C:
			return time.Time{}, fmt.Errorf("%d of %d files did not arrive within %s", len(left), len(want), limit)
		case <-tick.C:
			if err := alive(ctx); err != nil {
				return time.Time{}, err
			}
		case err := <-a.n.Errors:
			if !errors.Is(err, fsnotify.ErrEventOverflow) {
				return time.Time{}, fmt.Errorf("watch %s: %w", a.root, err)
			}
			for path := range left {
				check(path)
			}
		case ev := <-a.n.Events:
			if ev.Has(fsnotify.Create) {
				if fi, err := os.Lstat(ev.Name); err == nil && fi.IsDir() {
					if err := a.addTree(ev.Name); err != nil {
						return time.Time{}, err
					}
					for path := range left {
						check(path) // files created before the watch was
					}
				}
			}
			if ev.Has(fsnotify.Create) || ev.Has(fsnotify.Write) {
				check(ev.Name)
			}
		}
	}
	return last, nil
}

// holds reports whether path's content has SHA-256 sum.
func holds(path string, sum [32]byte) bool {
	data, err := os.ReadFile(path)
	return err == nil && sha256.Sum256(data) == sum
}
