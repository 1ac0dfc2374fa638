// Package watchtest gives a watch.Watcher notifications without the
// kernel's: a Notifier that compares the directories added to it every
// interval and reports what changed as fsnotify would (a path created,
// written or removed in a watched directory, or a watched directory
// removed). It waits on a ticker only, so a watcher using it inside a
// testing/synctest bubble runs on the bubble's fake clock, with the
// watcher's own debounce, aggregation and tree code unchanged.
package watchtest

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/teammemd/teammemd/watch"
)

// DefaultInterval is how often a Polling notifier compares by default.
const DefaultInterval = 20 * time.Millisecond

// Polling returns a watch.Options.Notify that polls every interval (or
// DefaultInterval when interval is zero).
func Polling(interval time.Duration) func() (watch.Notifier, error) {
	if interval <= 0 {
		interval = DefaultInterval
	}
	return func() (watch.Notifier, error) { return newPoller(interval), nil }
}

// entry is what a comparison looks at for one name in a directory.
type entry struct {
	mode fs.FileMode
	sum  [sha256.Size]byte // of a file's content or a symlink's target
}

// poller is the Notifier: a goroutine that compares the added directories
// every interval until Close.
type poller struct {
	events chan fsnotify.Event
	errors chan error
	stop   chan struct{}
	done   chan struct{}
	once   sync.Once

	mu   sync.Mutex
	dirs map[string]map[string]entry // watched directory -> its entries
}

func newPoller(interval time.Duration) *poller {
	p := &poller{
		events: make(chan fsnotify.Event, 1024),
		errors: make(chan error),
		stop:   make(chan struct{}),
		done:   make(chan struct{}),
		dirs:   map[string]map[string]entry{},
	}
	go p.run(interval)
	return p
}

// Add watches dir; like fsnotify, it fails for a missing directory.
func (p *poller) Add(dir string) error {
	dir = filepath.Clean(dir)
	snap, err := snapshot(dir)
	if err != nil {
		return fmt.Errorf("watchtest: add %s: %w", dir, err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.dirs[dir]; !ok {
		p.dirs[dir] = snap
	}
	return nil
}

// Remove stops watching dir.
func (p *poller) Remove(dir string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	dir = filepath.Clean(dir)
	if _, ok := p.dirs[dir]; !ok {
		return fmt.Errorf("watchtest: remove %s: %w", dir, fsnotify.ErrNonExistentWatch)
	}
	delete(p.dirs, dir)
	return nil
}

func (p *poller) Events() <-chan fsnotify.Event { return p.events }
func (p *poller) Errors() <-chan error          { return p.errors }

// Close stops polling and waits for the poller's goroutine to end.
func (p *poller) Close() error {
	p.once.Do(func() { close(p.stop) })
	<-p.done
	return nil
}

func (p *poller) run(interval time.Duration) {
	defer close(p.done)
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-ticker.C:
		}
		for _, ev := range p.compare() {
			select {
			case p.events <- ev:
			case <-p.stop:
				return
			}
		}
	}
}

// compare takes a fresh snapshot of every watched directory and returns
// the differences as events; a directory gone is reported removed and no
// longer watched, as the kernel drops the watch of a deleted directory.
func (p *poller) compare() []fsnotify.Event {
	p.mu.Lock()
	defer p.mu.Unlock()
	var evs []fsnotify.Event
	for dir, old := range p.dirs {
		snap, err := snapshot(dir)
		if err != nil {
			delete(p.dirs, dir)
			evs = append(evs, fsnotify.Event{Name: dir, Op: fsnotify.Remove})
			continue
		}
		evs = append(evs, diff(dir, old, snap)...)
		p.dirs[dir] = snap
	}
	return evs
}

// diff reports the names in dir created, written or removed from old to
// now.
func diff(dir string, old, now map[string]entry) []fsnotify.Event {
	var evs []fsnotify.Event
	for name, e := range now {
		path := filepath.Join(dir, name)
		was, ok := old[name]
		switch {
		case !ok:
			evs = append(evs, fsnotify.Event{Name: path, Op: fsnotify.Create})
		case was.mode.Type() != e.mode.Type():
			evs = append(evs, fsnotify.Event{Name: path, Op: fsnotify.Remove}, fsnotify.Event{Name: path, Op: fsnotify.Create})
		case was != e:
			evs = append(evs, fsnotify.Event{Name: path, Op: fsnotify.Write})
		}
	}
	for name := range old {
		if _, ok := now[name]; !ok {
			evs = append(evs, fsnotify.Event{Name: filepath.Join(dir, name), Op: fsnotify.Remove})
		}
	}
	return evs
}

// snapshot reads the entries of dir: each one's type and permissions and a
// hash of a file's content or a symlink's target (timestamps are too
// coarse to tell two quick writes apart).
func snapshot(dir string) (map[string]entry, error) {
	des, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	snap := make(map[string]entry, len(des))
	for _, de := range des {
		path := filepath.Join(dir, de.Name())
		fi, err := os.Lstat(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue // removed while reading
		}
		if err != nil {
			return nil, err
		}
		e := entry{mode: fi.Mode()}
		switch {
		case fi.Mode().IsRegular():
			data, err := os.ReadFile(path)
			if err == nil {
				e.sum = sha256.Sum256(data)
			}
		case fi.Mode().Type() == fs.ModeSymlink:
			target, err := os.Readlink(path)
			if err == nil {
				e.sum = sha256.Sum256([]byte(target))
			}
		}
		snap[de.Name()] = e
	}
	return snap, nil
}
