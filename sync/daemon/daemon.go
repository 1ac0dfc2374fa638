// Package daemon is the long-running teammemd sync daemon: for every
// configured repo it runs a directory watcher, a live change wait on the
// server and one worker that alone drives the repo's sync engine, so a local
// edit is pushed once the directory is quiet and a teammate's change lands
// as soon as the server has it. It adds and removes repos on reload, backs
// off on failures, stops pushing after a permanent refusal, flushes pending
// changes on shutdown, and reports its state on a local control socket. A
// reload restarts the repos whose server, token or watcher timing changed.
// A repo whose token file gives no token waits for the file to change.
package daemon

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/teammemd/teammemd/watch"
)

// Defaults for Options.
const (
	DefaultWaitTimeout  = 55 * time.Second
	DefaultFlushTimeout = 5 * time.Second
)

// ReleaseAfter is how many entries one pull or push must move before the
// daemon releases memory (Options.ReleaseMemory).
const ReleaseAfter = 100

// Opener builds the engine and change-wait client of one repo.
type Opener func(ctx context.Context, s Spec) (Engine, Waiter, error)

// Options configure a Daemon. Zero durations take the defaults.
type Options struct {
	Logger *slog.Logger
	Open   Opener
	// Watch tunes each repo's watcher (debounce, max wait, rescan).
	Watch watch.Options
	// MinBackoff and MaxBackoff bound the retry delay after failures.
	MinBackoff, MaxBackoff time.Duration
	// WaitTimeout is how long one change wait is held (at most 60s).
	WaitTimeout time.Duration
	// FlushTimeout bounds the last push at shutdown or removal.
	FlushTimeout time.Duration
	// CredentialCheck is how often a repo whose token the server rejected,
	// or whose token file gives no token, reads its token file for a
	// change.
	CredentialCheck time.Duration
	// Control, when set, serves the status API.
	Control net.Listener
	Version string
	// ReleaseMemory, when set, is called after a pull or push that moved at
	// least ReleaseAfter entries, to hand the memory the sync used back to
	// the system (debug.FreeOSMemory), so an idle daemon stays small.
	ReleaseMemory func()
	// OnReady, when set, is called once the first plan's repos are started
	// (and the control socket, if any, listens): the moment to tell a
	// service manager that the daemon is ready.
	OnReady func()
}

func (o *Options) setDefaults() {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	o.MinBackoff = cmp.Or(o.MinBackoff, DefaultMinBackoff)
	o.MaxBackoff = max(cmp.Or(o.MaxBackoff, DefaultMaxBackoff), o.MinBackoff)
	o.WaitTimeout = cmp.Or(o.WaitTimeout, DefaultWaitTimeout)
	o.FlushTimeout = cmp.Or(o.FlushTimeout, DefaultFlushTimeout)
	o.CredentialCheck = cmp.Or(o.CredentialCheck, DefaultCredentialCheck)
	o.Watch.Logger = o.Logger
}

// Plan is the set of repos the daemon should run.
type Plan struct {
	Specs []Spec
	// Skipped are repos found but not runnable, kept for the status.
	Skipped []Skipped
	// Watch, when set, replaces Options.Watch: a plan whose timing differs
	// from the running repos' restarts them with the new timing.
	Watch *watch.Options
	// Rediscovered marks a plan made because Claude Code's projects
	// changed, not a reload: the repos kept are left alone, without the
	// fresh attempt a reload gives them.
	Rediscovered bool
}

// Daemon supervises one repo runner per Spec.
type Daemon struct {
	opts    Options
	reload  chan reloadRequest
	restart chan *running // a repo to open again
	started time.Time
	watch   watch.Options // the current timing; the supervisor's alone
	// tokenReady is a repo whose token file changed while it waited
	// for one that gives a token (tokenwait.go).
	tokenReady chan *tokenWait

	mu        sync.Mutex // guards repos, waiting, skipped and reloadErr for Status
	repos     map[string]*running
	waiting   map[string]*tokenWait // repos waiting for a valid token file
	skipped   []Skipped
	reloadErr string // why the last reload failed; see NoteReload
}

// running is a started repo.
type running struct {
	spec   Spec // as planned
	r      *repo
	watch  watch.Options // the timing its watcher runs with
	cancel context.CancelFunc
	done   chan struct{}
}

// reloadRequest hands a plan to the supervisor; done closes once applied.
type reloadRequest struct {
	plan Plan
	done chan struct{}
}

// New returns a daemon; Run starts it.
func New(opts Options) (*Daemon, error) {
	if opts.Open == nil {
		return nil, fmt.Errorf("daemon: no engine opener")
	}
	opts.setDefaults()
	return &Daemon{
		opts: opts, reload: make(chan reloadRequest), restart: make(chan *running), tokenReady: make(chan *tokenWait),
		watch: opts.Watch, repos: map[string]*running{}, waiting: map[string]*tokenWait{}, started: time.Now(),
	}, nil
}

// Run runs the repos of plan until ctx is done, then stops them, flushing
// their pending changes, and returns nil.
func (d *Daemon) Run(ctx context.Context, plan Plan) error {
	g, gctx := errgroup.WithContext(ctx)
	if d.opts.Control != nil {
		g.Go(func() error { return serveControl(gctx, d.opts.Control, d.Status, d.opts.Logger) })
	}
	g.Go(func() error { return d.supervise(gctx, plan) })
	return g.Wait()
}

// Reload replaces the plan and returns once it is applied: new repos start,
// removed ones stop, ones whose server, token or watcher timing changed
// restart, and the ones kept forget any push suppression.
func (d *Daemon) Reload(ctx context.Context, plan Plan) error {
	req := reloadRequest{plan: plan, done: make(chan struct{})}
	select {
	case d.reload <- req:
	case <-ctx.Done():
		return fmt.Errorf("reload: %w", ctx.Err())
	}
	select {
	case <-req.done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("reload: %w", ctx.Err())
	}
}

// supervise owns the set of running repos.
func (d *Daemon) supervise(ctx context.Context, plan Plan) error {
	d.apply(ctx, plan)
	if d.opts.OnReady != nil && ctx.Err() == nil {
		d.opts.OnReady()
	}
	for {
		select {
		case <-ctx.Done():
			d.apply(ctx, Plan{})
			return nil
		case req := <-d.reload:
			d.opts.Logger.Info("reloading repos", "repos", len(req.plan.Specs))
			d.apply(ctx, req.plan)
			close(req.done)
		case run := <-d.restart:
			d.reopen(ctx, run)
		case w := <-d.tokenReady:
			d.retryToken(ctx, w)
		}
	}
}

// apply starts and stops repos to match plan. A repo that waits for a
// valid token file is tried again, but on a rediscovery.
func (d *Daemon) apply(ctx context.Context, plan Plan) {
	if plan.Watch != nil {
		d.watch = *plan.Watch
		d.watch.Logger = d.opts.Logger
	}
	want := map[string]Spec{}
	for _, s := range plan.Specs {
		want[s.key()] = s
	}
	d.stopStale(want)
	d.stopWaits(want, plan.Rediscovered)
	skipped := slices.Clone(plan.Skipped)
	for k, s := range want {
		d.mu.Lock()
		run, ok := d.repos[k]
		_, waits := d.waiting[k]
		d.mu.Unlock()
		if ok && !plan.Rediscovered {
			run.r.poke()
		}
		if ok || waits || ctx.Err() != nil {
			continue
		}
		if sk, ok := d.launch(ctx, s); !ok {
			skipped = append(skipped, sk)
		}
	}
	for _, s := range skipped {
		d.opts.Logger.Warn("skipping repo", "source", s.Source, "reason", s.Reason)
	}
	d.mu.Lock()
	d.skipped = skipped
	d.mu.Unlock()
}

// stopStale stops the repos not wanted any more and those whose watcher
// timing changed, and waits for them (and their last push) to end.
func (d *Daemon) stopStale(want map[string]Spec) {
	var stopping []*running
	d.mu.Lock()
	for k, run := range d.repos {
		if _, ok := want[k]; ok && run.watch.SameTiming(d.watch) {
			continue
		}
		run.cancel()
		stopping = append(stopping, run)
		delete(d.repos, k)
	}
	d.mu.Unlock()
	for _, run := range stopping {
		<-run.done
		run.r.log.Info("stopped syncing repo")
	}
}

// launch starts s, or, when its token file gives no token, has it wait
// for the file to change. When it can do neither it logs why and returns
// s as skipped, false.
func (d *Daemon) launch(ctx context.Context, s Spec) (Skipped, bool) {
	run, err := d.start(ctx, s)
	switch {
	case err == nil:
		d.mu.Lock()
		d.repos[s.key()] = run
		d.mu.Unlock()
		return Skipped{}, true
	case d.waitForToken(ctx, s, err):
		return Skipped{}, true
	}
	d.opts.Logger.Warn("cannot sync repo", "repo", s.Repo, "dir", s.Dir, "err", err)
	return Skipped{Source: s.Source, Reason: err.Error()}, false
}

// start opens a repo's parts and runs it in its own goroutine. The team
// directory is not created here: the engine creates it on a first sync,
// and one that synced before and is missing now waits for it to be back.
func (d *Daemon) start(ctx context.Context, s Spec) (*running, error) {
	planned := s
	eng, waiter, err := d.opts.Open(ctx, s)
	if err != nil {
		return nil, err
	}
	w, err := watch.New(s.Dir, d.watchOptions(s, eng))
	if err != nil {
		return nil, err
	}
	s.Dir = w.Dir()
	r := newRepo(s, eng, waiter, w, &d.opts)
	rctx, cancel := context.WithCancel(ctx)
	run := &running{spec: planned, r: r, watch: d.watch, cancel: cancel, done: make(chan struct{})}
	r.restart = func(ctx context.Context) {
		select {
		case d.restart <- run:
		case <-ctx.Done():
		}
	}
	go func() {
		defer close(run.done)
		if err := r.Run(rctx); err != nil {
			r.log.Error("repo stopped", "err", err)
			r.status.update(func(st *RepoStatus) { st.Suppressed = "stopped: " + err.Error() })
		}
	}()
	return run, nil
}

// watchOptions is the daemon's watcher timing for spec, with hints ahead
// of each batch, and a signal just before it is due, when the repo reads
// ahead (see repo.readsAhead).
func (d *Daemon) watchOptions(s Spec, eng Engine) watch.Options {
	o := d.watch
	if _, ok := eng.(Warmer); ok && s.lane() == LaneTeam {
		o.Settle, o.Lead = watch.DefaultSettle, watch.DefaultLead
	}
	return o
}

// DiscoveryToRetry reports whether the last plan left out a discovered
// project because its server could not be asked about it (see
// Skipped.AskAgain).
func (d *Daemon) DiscoveryToRetry() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.ContainsFunc(d.skipped, Skipped.AskAgain)
}

// Status reports the daemon and every running repo.
func (d *Daemon) Status() Status {
	d.mu.Lock()
	defer d.mu.Unlock()
	st := Status{PID: os.Getpid(), Version: d.opts.Version, Started: d.started, Skipped: slices.Clone(d.skipped)}
	st.ReloadError = d.reloadErr
	for _, run := range d.repos {
		st.Repos = append(st.Repos, run.r.statusNow())
	}
	for _, w := range d.waiting {
		st.Repos = append(st.Repos, w.status())
	}
	slices.SortFunc(st.Repos, func(a, b RepoStatus) int {
		return cmp.Or(cmp.Compare(a.Repo, b.Repo), cmp.Compare(a.Lane, b.Lane), cmp.Compare(a.Dir, b.Dir))
	})
	if st.Repos == nil {
		st.Repos = []RepoStatus{}
	}
	return st
}

// SocketPath is the control socket inside runtimeDir.
func SocketPath(runtimeDir string) string { return filepath.Join(runtimeDir, SocketName) }

// reopen stops run and starts its spec again, opening its engine and
// client anew, unless run is no longer the one running for its spec.
func (d *Daemon) reopen(ctx context.Context, run *running) {
	k := run.spec.key()
	d.mu.Lock()
	cur, ok := d.repos[k]
	if ok && cur == run {
		delete(d.repos, k)
	}
	d.mu.Unlock()
	if !ok || cur != run {
		return
	}
	run.cancel()
	<-run.done
	if ctx.Err() != nil {
		return
	}
	if sk, ok := d.launch(ctx, run.spec); !ok {
		d.mu.Lock()
		d.skipped = append(d.skipped, sk)
		d.mu.Unlock()
	}
}
