// Package watch watches a directory tree for changes and reports them in
// debounced batches: recursive fsnotify watches that follow new and removed
// subdirectories, editor and hidden files ignored, a trailing debounce with a
// maximum wait, hints of the changed paths once they settle, ahead of their
// batch, when asked; the paths not delivered yet, for a status to show; and
// periodic safety rescans, falling back to rescans alone when the system
// runs out of notification watches. The watched directory itself may be
// missing, removed, moved away or replaced, by a symlink to another
// directory for one: its parent is watched too, a missing directory is
// polled for, and the tree is watched afresh, following the symlink,
// whenever the directory changes.
package watch

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/teammemd/teammemd/internal/savetrace"
)

// Defaults for Options.
const (
	DefaultDebounce = 2 * time.Second
	DefaultMaxWait  = 10 * time.Second
	DefaultRescan   = 5 * time.Minute
	// DefaultFallbackRescan is the rescan interval when notification is
	// unavailable (no inotify watches or instances left).
	DefaultFallbackRescan = 10 * time.Second
)

// Options tune a Watcher. Zero values take the defaults.
type Options struct {
	Debounce       time.Duration // quiet time after the last change
	MaxWait        time.Duration // longest a change waits while edits continue
	Rescan         time.Duration // safety rescan interval
	FallbackRescan time.Duration // rescan interval without notification
	// Settle, when set and shorter than Debounce, has the watcher offer
	// on Settled the paths changed once the directory has been quiet this
	// long (DefaultSettle is a good value): a head start for a reader
	// that reads the files while the debounce runs.
	Settle time.Duration
	// Lead, when set and shorter than Debounce, has the watcher offer on
	// Soon, this long before a batch of changes is due, the paths it will
	// name (DefaultLead is a good value): a head start for whoever wakes
	// to handle it.
	Lead   time.Duration
	Logger *slog.Logger
	// Notify, when set, replaces fsnotify as the source of notifications:
	// each Run calls it once and closes what it returns. Tests use it to
	// watch without the kernel's notification (see package watchtest).
	Notify func() (Notifier, error)
}

// Notifier delivers notifications for the directories added to it, as an
// fsnotify.Watcher does: an event names a path in an added directory, or
// the added directory itself.
type Notifier interface {
	Add(dir string) error
	Remove(dir string) error
	Events() <-chan fsnotify.Event
	Errors() <-chan error
	Close() error
}

// fsNotifier is the kernel's notification through fsnotify.
type fsNotifier struct{ w *fsnotify.Watcher }

func newFSNotifier() (Notifier, error) {
	w, err := fsnotify.NewBufferedWatcher(1024)
	if err != nil {
		return nil, err
	}
	return fsNotifier{w}, nil
}

func (f fsNotifier) Add(dir string) error          { return f.w.Add(dir) }
func (f fsNotifier) Remove(dir string) error       { return f.w.Remove(dir) }
func (f fsNotifier) Events() <-chan fsnotify.Event { return f.w.Events }
func (f fsNotifier) Errors() <-chan error          { return f.w.Errors }
func (f fsNotifier) Close() error                  { return f.w.Close() }

func (o Options) withDefaults() Options {
	if o.Debounce <= 0 {
		o.Debounce = DefaultDebounce
	}
	if o.MaxWait <= 0 {
		o.MaxWait = DefaultMaxWait
	}
	if o.MaxWait < o.Debounce {
		o.MaxWait = o.Debounce
	}
	if o.Rescan <= 0 {
		o.Rescan = DefaultRescan
	}
	if o.FallbackRescan <= 0 {
		o.FallbackRescan = DefaultFallbackRescan
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Notify == nil {
		o.Notify = newFSNotifier
	}
	return o
}

// SameTiming reports whether o and p time a watcher the same way once the
// defaults apply: debounce, maximum wait and both rescan intervals.
func (o Options) SameTiming(p Options) bool {
	o, p = o.withDefaults(), p.withDefaults()
	return o.Debounce == p.Debounce && o.MaxWait == p.MaxWait &&
		o.Rescan == p.Rescan && o.FallbackRescan == p.FallbackRescan
}

// Watcher reports changes under one directory on its Batches channel.
type Watcher struct {
	dir     string
	opts    Options
	log     *slog.Logger
	batches chan Batch
	settled chan []string
	soon    chan []string
	recheck chan struct{}
	// attached is closed once Run watches (or polls) the directory.
	attached     chan struct{}
	attachedOnce sync.Once
	// unbatched is what the last Run saw that no batch delivered; set
	// as it returns.
	unbatched Batch
	// asking is how Undelivered reaches the aggregator of the latest Run;
	// nil before the first.
	askMu  sync.Mutex
	asking *askLine
}

// askLine leads to one Run's aggregator: asks takes a reply channel,
// which the aggregator answers on at once, until done is closed.
type askLine struct {
	asks chan chan<- []string
	done <-chan struct{}
}

// New returns a watcher for dir. Call Run to start watching. The directory
// need not exist yet: Run waits for it.
func New(dir string, opts Options) (*Watcher, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("watch %s: %w", dir, err)
	}
	opts = opts.withDefaults()
	return &Watcher{dir: abs, opts: opts, log: opts.Logger, batches: make(chan Batch), settled: make(chan []string), soon: make(chan []string), recheck: make(chan struct{}, 1), attached: make(chan struct{})}, nil
}

// Recheck asks the watcher to look at the watched directory itself again,
// as when its user found it missing: a change that sent no notification
// (the target of a symlink removed, say) is then noticed, and a missing
// directory is polled for until it is back.
func (w *Watcher) Recheck() {
	select {
	case w.recheck <- struct{}{}:
	default:
	}
}

// Batches delivers the debounced changes. It is never closed; stop reading
// when Run returns.
func (w *Watcher) Batches() <-chan Batch { return w.batches }

// Settled delivers, when Options.Settle is set, the paths changed since
// the last delivery once the directory has been quiet for Settle: a hint
// ahead of the batch, which still names them. Hints not taken merge; a
// batch drops those it covers. It is never closed.
func (w *Watcher) Settled() <-chan []string { return w.settled }

// Soon delivers, when Options.Lead is set, the paths of a batch of
// changes due within Lead: once for each deadline, again when a change
// moves it. A notice not taken by the time its batch is out is dropped;
// the batch names the paths all the same. It is never closed.
func (w *Watcher) Soon() <-chan []string { return w.soon }

// Attached is closed once Run watches the directory, or polls it where
// notification is unavailable: from then on, every change to the tree is
// in a batch, named or as a rescan. A watcher waiting for a missing
// directory counts as attached: its return comes as a rescan.
func (w *Watcher) Attached() <-chan struct{} { return w.attached }

func (w *Watcher) markAttached() { w.attachedOnce.Do(func() { close(w.attached) }) }

// Unbatched returns, once Run has returned, the changes it saw that no
// batch delivered: those still in the debounce when ctx ended, and a
// batch not taken. A reader that stops reading Batches when Run does
// hands these on, so that a change seen just before shutdown is not lost.
func (w *Watcher) Unbatched() Batch { return w.unbatched }

// Undelivered returns the paths changed under the directory that no batch
// has delivered yet: those in the debounce, and those of a batch not yet
// taken from Batches, sorted. A rescan names no path and is not in it. It
// asks the goroutine that owns them, which answers between two events, so
// the watcher pays nothing until it is called; it returns nil when Run
// is not running.
func (w *Watcher) Undelivered() []string {
	w.askMu.Lock()
	line := w.asking
	w.askMu.Unlock()
	if line == nil {
		return nil
	}
	reply := make(chan []string, 1)
	select {
	case line.asks <- reply:
		return <-reply
	case <-line.done:
		return nil
	}
}

// Dir is the absolute path of the watched directory.
func (w *Watcher) Dir() string { return w.dir }

// Run watches until ctx is done, then releases every watch and returns nil.
// It returns an error only if the directory cannot be watched at all.
// What it saw that no batch delivered is then Unbatched.
func (w *Watcher) Run(ctx context.Context) error {
	events := make(chan event, 256)
	// The aggregator stops only once the tree is done sending: every
	// change the tree saw is in a batch or Unbatched.
	actx, stop := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	asks := make(chan chan<- []string)
	go func() {
		defer close(done)
		w.unbatched = newAggregator(w.opts.Debounce, w.opts.MaxWait).withHints(w.opts.Settle, w.settled).withLead(w.opts.Lead, w.soon).withAsk(asks).run(actx, events, w.batches)
	}()
	defer func() { stop(); <-done }()
	w.askMu.Lock()
	w.asking = &askLine{asks: asks, done: done}
	w.askMu.Unlock()

	t := &tree{root: w.dir, parent: filepath.Dir(w.dir), log: w.log, dirs: map[string]bool{}, events: events}
	notifier, err := w.opts.Notify()
	if err != nil {
		w.log.Warn("file notification unavailable, falling back to rescans",
			"dir", w.dir, "err", err, "hint", limitHint(err))
		w.markAttached()
		return w.poll(ctx, t, w.opts.FallbackRescan)
	}
	t.notifier = notifier
	defer notifier.Close()
	if err := t.attach(ctx); err != nil && !t.exhausted {
		return fmt.Errorf("watch %s: %w", w.dir, err)
	}
	w.markAttached()
	return w.loop(ctx, t, notifier)
}

// loop forwards notifications until ctx is done, rescanning periodically
// and, while the directory is missing, polling for it every debounce
// interval.
func (w *Watcher) loop(ctx context.Context, t *tree, n Notifier) error {
	events, errs := n.Events(), n.Errors()
	ticker := time.NewTicker(w.rescanInterval(t))
	defer ticker.Stop()
	poll := time.NewTicker(w.opts.Debounce)
	poll.Stop()
	defer poll.Stop()
	polling := false
	for {
		if t.missing != polling {
			polling = t.missing
			poll.Stop()
			if polling {
				poll.Reset(w.opts.Debounce)
			}
		}
		select {
		case <-ctx.Done():
			drain(ctx, t, events)
			return nil
		case ev, ok := <-events:
			if !ok {
				return nil
			}
			savetrace.Mark("watch.event", ev.Name)
			t.handle(ctx, ev)
		case err, ok := <-errs:
			if !ok {
				return nil
			}
			w.log.Warn("file notification error, rescanning", "dir", w.dir, "err", err)
			t.rescan(ctx)
		case <-ticker.C:
			t.rescan(ctx)
			ticker.Reset(w.rescanInterval(t))
		case <-w.recheck:
			t.checkRoot(ctx)
		case <-poll.C:
			t.checkRoot(ctx)
		}
	}
}

// drain handles the notifications already queued as the watch stops, so
// that a change made just before is in Unbatched.
func drain(ctx context.Context, t *tree, events <-chan fsnotify.Event) {
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				return
			}
			t.handle(ctx, ev)
		default:
			return
		}
	}
}

// rescanInterval is the safety interval, shortened while some directories
// could not be watched.
func (w *Watcher) rescanInterval(t *tree) time.Duration {
	if t.exhausted {
		return w.opts.FallbackRescan
	}
	return w.opts.Rescan
}

// poll only rescans, for systems where notification cannot start.
func (w *Watcher) poll(ctx context.Context, t *tree, interval time.Duration) error {
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-ticker.C:
			t.send(event{rescan: true})
		}
	}
}

// limitHint names the kernel setting to raise when err is a resource limit.
func limitHint(err error) string {
	switch {
	case errors.Is(err, syscall.ENOSPC):
		return "raise sysctl fs.inotify.max_user_watches (for example: sudo sysctl fs.inotify.max_user_watches=524288)"
	case errors.Is(err, syscall.EMFILE):
		return "raise sysctl fs.inotify.max_user_instances (for example: sudo sysctl fs.inotify.max_user_instances=1024) or the open-file limit (ulimit -n)"
	}
	return ""
}

// isLimit reports whether err means the notification resources ran out.
func isLimit(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EMFILE)
}

// relPath returns the slash form of path relative to root, or "" for root.
func relPath(root, path string) (string, bool) {
	rel, err := filepath.Rel(root, path)
	if err != nil || rel == "." || rel == ".." || filepath.IsAbs(rel) || len(rel) >= 3 && rel[:3] == ".."+string(filepath.Separator) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}
