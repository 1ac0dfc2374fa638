package daemon

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/servertest"
	"github.com/teammemd/teammemd/server/store"
	memsync "github.com/teammemd/teammemd/sync"
)

// A daemon whose token may only read its repo pulls its teammates' notes
// into an empty team directory: the files it only pulled are never listed
// as pending (waiting to be pushed), not while it pulls, not when the
// watcher reports the pull's writes, not after a rescan, not after a
// teammate's update, and not after a restart on the same state.

// pendingSpy records every moment the repo in dir was seen with a non-empty
// Pending list: by a goroutine polling the status, and by the engine
// wrapper (spyEngine) at the start of each pull and push, the moments a
// status read between two worker steps would see.
type pendingSpy struct {
	dir     string
	d       atomic.Pointer[Daemon]
	off     atomic.Bool // the daemon stops: the wrapper no longer looks
	mu      sync.Mutex
	seen    []string
	batches logLines
}

func (p *pendingSpy) look(where string) {
	d := p.d.Load()
	if d == nil || p.off.Load() {
		return
	}
	for _, r := range d.Status().Repos {
		if r.Dir == p.dir && len(r.Pending) > 0 {
			p.mu.Lock()
			p.seen = append(p.seen, fmt.Sprintf("%s: pending %v (state %s, suppressed %q, last pull %+v)", where, r.Pending, r.State, r.Suppressed, r.LastPull))
			p.mu.Unlock()
		}
	}
}

func (p *pendingSpy) report(t *testing.T) {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.seen) == 0 {
		return
	}
	n := min(len(p.seen), 10)
	t.Errorf("pulled files listed as pending %d times; first %d:\n  %s\nbatches taken as user changes: %v",
		len(p.seen), n, strings.Join(p.seen[:n], "\n  "), p.batches.all())
}

// poll looks at the status every step until ctx is done.
func (p *pendingSpy) poll(ctx context.Context, step time.Duration) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(step):
			p.look("poll")
		}
	}
}

// spyEngine is the real engine with a look at the status before each pull
// and push.
type spyEngine struct {
	*memsync.Engine
	spy *pendingSpy
}

func (e spyEngine) Pull(ctx context.Context) (memsync.Report, error) {
	e.spy.look("before pull")
	return e.Engine.Pull(ctx)
}

func (e spyEngine) PullChanged(ctx context.Context, h api.HashesResponse) (memsync.Report, error) {
	e.spy.look("before changed pull")
	return e.Engine.PullChanged(ctx, h)
}

func (e spyEngine) Push(ctx context.Context) (memsync.Report, error) {
	e.spy.look("before push")
	return e.Engine.Push(ctx)
}

// logLines keeps the "changes batched" debug lines with their attributes:
// the batches the repo took for user changes.
type logLines struct {
	mu    sync.Mutex
	lines []string
}

func (l *logLines) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.lines)
}

type batchLog struct{ l *logLines }

func (h batchLog) Enabled(context.Context, slog.Level) bool { return true }
func (h batchLog) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h batchLog) WithGroup(string) slog.Handler            { return h }
func (h batchLog) Handle(_ context.Context, r slog.Record) error {
	if r.Message != "changes batched" && r.Message != "push refused; waiting for the files or the config to change" {
		return nil
	}
	var b strings.Builder
	b.WriteString(r.Message)
	r.Attrs(func(a slog.Attr) bool { fmt.Fprintf(&b, " %s=%v", a.Key, a.Value); return true })
	h.l.mu.Lock()
	h.l.lines = append(h.l.lines, b.String())
	h.l.mu.Unlock()
	return nil
}

// startReader runs a daemon with token on dir, its state in stateDir, its
// engine spied on by spy.
func startReader(t *testing.T, srv *servertest.Server, token, dir, stateDir string, spy *pendingSpy, edit func(*Options)) *node {
	t.Helper()
	log := slog.New(batchLog{&spy.batches})
	c := &counter{next: newTransport(t)}
	inner := testOpener(t, token, stateDir, c, log)
	n := startNode(t, token, Plan{Specs: []Spec{{Repo: slug, Dir: dir, Server: srv.URL, Source: "test"}}}, func(o *Options) {
		o.Logger = log
		o.Open = func(ctx context.Context, s Spec) (Engine, Waiter, error) {
			eng, w, err := inner(ctx, s)
			if err != nil {
				return nil, nil, err
			}
			return spyEngine{Engine: eng.(*memsync.Engine), spy: spy}, w, nil
		}
		if edit != nil {
			edit(o)
		}
	})
	n.count = c
	spy.off.Store(false)
	spy.d.Store(n.d)
	return n
}

// roTeammate writes notes into the repo with a writer's engine.
type roTeammate struct {
	eng *memsync.Engine
	dir string
}

func newROTeammate(t *testing.T, srv *servertest.Server) *roTeammate {
	dir := t.TempDir()
	return &roTeammate{eng: engineOn(t, srv, dir, t.TempDir()), dir: dir}
}

func (tm *roTeammate) push(t *testing.T, files map[string]string) {
	t.Helper()
	for k, v := range files {
		write(t, tm.dir, k, v)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	rep, err := tm.eng.Push(ctx)
	if err != nil {
		t.Fatalf("teammate's push: %v", err)
	}
	if len(rep.Pushed) != len(files) {
		t.Fatalf("teammate pushed %v, want %d files", rep.Pushed, len(files))
	}
}

// staysUnpending checks, several times over span, that the repo lists
// nothing pending and its pushes are not stopped.
func staysUnpending(t *testing.T, n *node, dir string, span time.Duration) {
	t.Helper()
	deadline := time.Now().Add(span)
	for i := 0; ; i++ {
		r, ok := n.repoStatus(dir)
		if !ok {
			t.Fatalf("no status for %s", dir)
		}
		if len(r.Pending) > 0 || r.Suppressed != "" || r.State == StatePending || r.State == StateStopped {
			t.Errorf("check %d: pending %v, suppressed %q, state %s; want nothing pending", i, r.Pending, r.Suppressed, r.State)
			return
		}
		if time.Now().After(deadline) {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

var readerNotes = map[string]string{"a.md": "note a\n", "sub/b.md": "note b\n"}

func readerSetup(t *testing.T) (*servertest.Server, string, *roTeammate) {
	srv := startServer(t)
	readOnly := srv.CreateToken(t, "reader", store.Grant{Pattern: "acme/**", Level: store.LevelRead})
	return srv, readOnly, newROTeammate(t, srv)
}

// firstNote makes the repo exist before a reader starts.
var firstNote = map[string]string{"first.md": "so the repo exists\n"}

// readerCase is a real server holding a teammate's first notes, and the
// read-only token, directories and spy of a reader to start.
type readerCase struct {
	srv        *servertest.Server
	readOnly   string
	tm         *roTeammate
	dir, state string
	spy        *pendingSpy
}

// newReaderCase has the teammate push first; an empty dir is a new
// temporary directory. With polled, the spy reads the status every
// millisecond until the test ends.
func newReaderCase(t *testing.T, first map[string]string, dir string, polled bool) *readerCase {
	srv, readOnly, tm := readerSetup(t)
	tm.push(t, first)
	if dir == "" {
		dir = t.TempDir()
	}
	c := &readerCase{srv: srv, readOnly: readOnly, tm: tm, dir: dir, state: t.TempDir(), spy: &pendingSpy{dir: dir}}
	if polled {
		ctx, cancel := context.WithCancel(context.Background())
		go c.spy.poll(ctx, time.Millisecond)
		t.Cleanup(cancel)
	}
	return c
}

// start starts the reader with edit's options.
func (c *readerCase) start(t *testing.T, edit func(*Options)) *node {
	return startReader(t, c.srv, c.readOnly, c.dir, c.state, c.spy, edit)
}

func waitFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for k, v := range files {
		eventually(t, k+" pulled", fileIs(filepath.Join(dir, filepath.FromSlash(k)), v))
	}
}

// Notes on the server before the reader starts on an empty directory.
func TestReadOnlyPulledNotPending(t *testing.T) { bubble(t, testReadOnlyPulledNotPending) }

func testReadOnlyPulledNotPending(t *testing.T) {
	c := newReaderCase(t, readerNotes, "", true)
	n := c.start(t, func(o *Options) { o.Watch.Rescan = 300 * time.Millisecond })
	waitFiles(t, c.dir, readerNotes)
	n.settles(t, c.dir, "idle", func(r RepoStatus) bool { return r.State == StateIdle })
	staysUnpending(t, n, c.dir, 2*time.Second) // past the debounce and several rescans
	c.spy.report(t)
}

// The reader runs first; the notes arrive by its change wait, then a
// teammate updates one, then the reader restarts on the same state.
func TestReadOnlyPulledNotPendingLater(t *testing.T) { bubble(t, testReadOnlyPulledNotPendingLater) }

func testReadOnlyPulledNotPendingLater(t *testing.T) {
	pulledUpdatedRestarted(t, func(o *Options) { o.Watch.Rescan = 300 * time.Millisecond })
}

// pulledUpdatedRestarted runs a reader with edit's options; a teammate's
// notes arrive by its change wait, then an update of one, then the reader
// restarts on the same state: nothing is listed pending at any step.
func pulledUpdatedRestarted(t *testing.T, edit func(*Options)) {
	c := newReaderCase(t, firstNote, "", true)
	n := c.start(t, edit)
	n.settles(t, c.dir, "idle", func(r RepoStatus) bool { return r.State == StateIdle && r.Live })
	c.tm.push(t, readerNotes)
	waitFiles(t, c.dir, readerNotes)
	staysUnpending(t, n, c.dir, 2*time.Second)
	c.tm.push(t, map[string]string{"a.md": "note a, updated\n", "sub/c.md": "c\n"})
	eventually(t, "a.md updated", fileIs(filepath.Join(c.dir, "a.md"), "note a, updated\n"))
	staysUnpending(t, n, c.dir, 2*time.Second)
	c.spy.off.Store(true)
	n.stop(t)
	n2 := c.start(t, edit)
	n2.settles(t, c.dir, "idle after restart", func(r RepoStatus) bool { return r.State == StateIdle })
	staysUnpending(t, n2, c.dir, 2*time.Second)
	c.spy.report(t)
}

// The notes arrive while the watcher's debounce runs: a directory made
// here (no note), a rescan pending, and the pull's writes in one batch.
func TestReadOnlyPulledNotPendingInDebounce(t *testing.T) {
	bubble(t, testReadOnlyPulledNotPendingInDebounce)
}

func testReadOnlyPulledNotPendingInDebounce(t *testing.T) {
	c := newReaderCase(t, firstNote, "", true)
	dir, tm, spy := c.dir, c.tm, c.spy
	// A long debounce: the pull lands inside it.
	n := c.start(t, func(o *Options) {
		o.Watch.Debounce, o.Watch.MaxWait, o.Watch.Rescan = 700*time.Millisecond, 3*time.Second, 500*time.Millisecond
	})
	n.settles(t, dir, "idle", func(r RepoStatus) bool { return r.State == StateIdle && r.Live })
	for i := range 3 {
		if err := os.MkdirAll(filepath.Join(dir, fmt.Sprintf("empty%d", i)), 0o755); err != nil {
			t.Fatal(err)
		}
		time.Sleep(50 * time.Millisecond)
		tm.push(t, map[string]string{fmt.Sprintf("n%d.md", i): fmt.Sprintf("note %d\n", i), fmt.Sprintf("sub%d/m.md", i): "m\n"})
		eventually(t, "pulled", fileIs(filepath.Join(dir, fmt.Sprintf("n%d.md", i)), fmt.Sprintf("note %d\n", i)))
		time.Sleep(200 * time.Millisecond)
	}
	staysUnpending(t, n, dir, 3*time.Second)
	spy.report(t)
}

// The same three steps on the real watcher (fsnotify) and real TCP, in
// real time.
func TestReadOnlyPulledNotPendingRealWatcher(t *testing.T) { pulledUpdatedRestarted(t, nil) }

// A reader whose push of a file of its own was refused (pushes stopped)
// pulls a teammate's notes: a rescan in the batch with the pull's writes
// must not list them as pending, nor keep them there.
func TestReadOnlyPulledNotPendingWhileStopped(t *testing.T) {
	bubble(t, testReadOnlyPulledNotPendingWhileStopped)
}

func testReadOnlyPulledNotPendingWhileStopped(t *testing.T) {
	c := newReaderCase(t, firstNote, "", false)
	dir, tm, spy := c.dir, c.tm, c.spy
	n := c.start(t, func(o *Options) {
		o.Watch.Debounce, o.Watch.MaxWait, o.Watch.Rescan = 300*time.Millisecond, 3*time.Second, 400*time.Millisecond
	})
	n.settles(t, dir, "idle", func(r RepoStatus) bool { return r.State == StateIdle && r.Live })
	write(t, dir, "mine.md", "cannot be pushed\n")
	n.settles(t, dir, "pushes stopped", func(r RepoStatus) bool { return r.Suppressed != "" })
	tm.push(t, readerNotes)
	waitFiles(t, dir, readerNotes)
	time.Sleep(2 * time.Second) // several rescans
	r, _ := n.repoStatus(dir)
	if !slices.Equal(r.Pending, []string{"mine.md"}) {
		t.Errorf("pending %v (state %s), want [mine.md] alone; batches: %v", r.Pending, r.State, spy.batches.all())
	}
}

// The same with no rescan at all: the reader's own edit and the pull's
// writes share one watcher batch; the push is refused, and nothing but the
// reader's own file may stay listed as pending.
func TestReadOnlyPulledNotPendingWithEdit(t *testing.T) {
	bubble(t, testReadOnlyPulledNotPendingWithEdit)
}

func testReadOnlyPulledNotPendingWithEdit(t *testing.T) {
	c := newReaderCase(t, firstNote, "", false)
	dir, tm, spy := c.dir, c.tm, c.spy
	n := c.start(t, func(o *Options) {
		o.Watch.Debounce, o.Watch.MaxWait, o.Watch.Rescan = time.Second, 5*time.Second, time.Hour
	})
	n.settles(t, dir, "idle", func(r RepoStatus) bool { return r.State == StateIdle && r.Live && len(r.Debouncing) == 0 })
	time.Sleep(2 * time.Second) // the start's batches are over
	write(t, dir, "mine.md", "cannot be pushed\n")
	n.settles(t, dir, "pushes stopped", func(r RepoStatus) bool { return r.Suppressed != "" })
	write(t, dir, "mine.md", "cannot be pushed, edited\n") // the debounce runs
	tm.push(t, readerNotes)                                // pulled within it
	waitFiles(t, dir, readerNotes)
	n.settles(t, dir, "pushes stopped again", func(r RepoStatus) bool {
		return r.Suppressed != "" && r.LastPush != nil && r.LastPush.Time.After(r.LastPull.Time)
	})
	for range 5 {
		time.Sleep(400 * time.Millisecond)
		if r, _ := n.repoStatus(dir); !slices.Equal(r.Pending, []string{"mine.md"}) {
			t.Fatalf("pending %v (state %s), want [mine.md] alone; batches: %v", r.Pending, r.State, spy.batches.all())
		}
	}
}

// The team directory does not exist when the reader starts: its first pull
// makes it, and the watcher attaches to it with a rescan (real watcher).
func TestReadOnlyPulledNotPendingMissingDir(t *testing.T) {
	c := newReaderCase(t, readerNotes, filepath.Join(t.TempDir(), "team"), true)
	n := c.start(t, nil)
	waitFiles(t, c.dir, readerNotes)
	n.settles(t, c.dir, "idle", func(r RepoStatus) bool { return r.State == StateIdle })
	staysUnpending(t, n, c.dir, 3*time.Second)
	c.spy.report(t)
}

// A reader's own files, refused, stay pending while they differ from the
// server; one it removes again leaves the list at the next refused push.
func TestReadOnlyPendingDropsRevertedFile(t *testing.T) {
	bubble(t, testReadOnlyPendingDropsRevertedFile)
}

func testReadOnlyPendingDropsRevertedFile(t *testing.T) {
	c := newReaderCase(t, firstNote, "", false)
	dir := c.dir
	n := c.start(t, func(o *Options) {
		o.Watch.Debounce, o.Watch.MaxWait, o.Watch.Rescan = 300*time.Millisecond, 3*time.Second, time.Hour
	})
	n.settles(t, dir, "idle", func(r RepoStatus) bool { return r.State == StateIdle && r.Live })
	write(t, dir, "a.md", "cannot be pushed\n")
	write(t, dir, "b.md", "cannot be pushed either\n")
	refused := n.settles(t, dir, "both refused", func(r RepoStatus) bool {
		return r.Suppressed != "" && r.LastPush != nil && slices.Equal(r.Pending, []string{"a.md", "b.md"})
	}).LastPush.Time
	if err := os.Remove(filepath.Join(dir, "a.md")); err != nil {
		t.Fatal(err)
	}
	n.settles(t, dir, "refused again", func(r RepoStatus) bool {
		return r.Suppressed != "" && r.LastPush != nil && r.LastPush.Time.After(refused)
	})
	if r, _ := n.repoStatus(dir); !slices.Equal(r.Pending, []string{"b.md"}) {
		t.Errorf("pending %v after a.md was removed, want [b.md]", r.Pending)
	}
}
