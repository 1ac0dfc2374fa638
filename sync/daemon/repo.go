package daemon

import (
	"context"
	"crypto/sha256"
	"log/slog"
	"slices"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/teammemd/teammemd/server/api"
	memsync "github.com/teammemd/teammemd/sync"
	"github.com/teammemd/teammemd/watch"
)

// Engine is one repo's sync engine.
type Engine interface {
	Pull(ctx context.Context) (memsync.Report, error)
	// PullChanged pulls with h, the hashes a change wait answered, as a
	// hint of which values changed.
	PullChanged(ctx context.Context, h api.HashesResponse) (memsync.Report, error)
	Push(ctx context.Context) (memsync.Report, error)
	Checksum() string
	// StoreChanged reports whether the server's store identity differs
	// from the one the repo last synced with (a restore from backup, a
	// move); the next pull re-baselines.
	StoreChanged() bool
	// Unsent lists the files a push would send or delete, without asking
	// the server.
	Unsent() ([]string, error)
	// Show returns a key as it may be shown: redacted when its name holds
	// a secret.
	Show(key string) string
	// Identify returns what a path in the team directory is now, by its
	// metadata, to tell a pull's writes (Report.Written) from a user's.
	Identify(key string) (memsync.FileID, error)
	// RefreshProvenance rewrites the record of who last changed each
	// key, from the server's history, for the session-start hook; it is
	// bounded by ctx and touches neither the team directory nor the state.
	RefreshProvenance(ctx context.Context) error
}

// Waiter holds change waits (PROTOCOL.md section 3) on the server.
type Waiter interface {
	Wait(ctx context.Context, repo, ifNoneMatch string, wait time.Duration) (api.HashesResponse, bool, error)
}

// ChangesWaiter is a Waiter that can hold a change wait for a client
// that holds the whole hashes held: the answer names the keys changed
// since alone (PROTOCOL.md section 18) and comes back whole, made from
// what heldAt returns when it is relative to a checksum the repo's own
// push made (section 19).
type ChangesWaiter interface {
	WaitChanges(ctx context.Context, repo string, held api.HashesResponse, wait time.Duration, heldAt memsync.HeldAt) (api.HashesResponse, bool, error)
}

var _ ChangesWaiter = (*memsync.Client)(nil)

// HashesFolder is an Engine that can make the server's whole hashes at
// the checksum it synced to from those at an earlier one (see
// memsync.Engine.HashesFrom), so that a change wait carried past its
// own pushes still asks for, and applies, the changes since alone.
type HashesFolder interface {
	HashesFrom(held api.HashesResponse) (api.HashesResponse, bool)
}

var _ HashesFolder = (*memsync.Engine)(nil)

// Spec names one repo for the daemon to keep in sync.
type Spec struct {
	Repo      string `json:"repo"`
	Dir       string `json:"dir"`
	Server    string `json:"server"`
	TokenFile string `json:"tokenFile,omitempty"`
	// TokenID identifies the token's value (a digest, never the token), so
	// a reload that changes the token restarts the repo.
	TokenID string `json:"-"`
	// Source says where the repo came from, for logs and status.
	Source string `json:"source"`
	// CredentialFile is the file whose change may fix a rejected token:
	// the token file, or the login's; TokenFile when empty.
	CredentialFile string `json:"-"`
	// TokenEnv names the environment variable the token came from, when
	// it did ($TEAMMEMD_TOKEN): no file holds it, so the fix for a token
	// the server refuses is a restart of the daemon with another.
	TokenEnv string `json:"-"`
	// Lane is LaneTeam (or "") for a team repo, LanePersonal for a
	// personal lane, whose Repo is the project (a slug, or "~user").
	Lane string `json:"lane,omitempty"`
	// KeyFile, for a personal lane, is the file of its server's personal
	// key, whose change may restart a lane stopped for its key.
	KeyFile string `json:"-"`
}

// The lanes a spec can sync.
const (
	LaneTeam     = "team"
	LanePersonal = "personal"
)

// key identifies a spec across reloads.
func (s Spec) key() string {
	return s.Server + "\x00" + s.Repo + "\x00" + s.Dir + "\x00" + s.TokenFile + "\x00" + s.TokenID + "\x00" + s.lane()
}

// lane is the spec's lane, LaneTeam when unset.
func (s Spec) lane() string {
	if s.Lane == "" {
		return LaneTeam
	}
	return s.Lane
}

// msgOwnWrites is logged for a watcher batch made only of the last pull's
// writes, which is not a user change.
const msgOwnWrites = "changes are the last pull's own writes"

// repo runs one repo: its watcher, its change wait and the worker that alone
// calls the engine, so pulls and pushes never overlap.
type repo struct {
	spec    Spec
	eng     Engine
	waiter  Waiter
	watcher *watch.Watcher
	log     *slog.Logger
	opts    *Options
	status  *statusBox

	pullReq chan waitAnswer // change wait -> worker: pull, then reply
	kick    chan struct{}   // push now and forget a suppression
	reached chan struct{}   // worker -> change wait: a pull or push got through
	own     *ownWrites      // what pulls wrote; the worker's alone
	warming warmStop        // the read ahead under way (warm.go)
	// announcedAt is when the worker last announced a push ahead of its
	// batch (batchDue); the worker's alone.
	announcedAt time.Time
	// restart has the daemon open the repo again, reading its token anew.
	restart func(ctx context.Context)
	// keyAtOpen, for a personal lane, is the digest of its key file when
	// the lane was opened with the keys in it; recheck has the credential
	// watch look at the file at once (halt.go).
	keyAtOpen [sha256.Size]byte
	recheck   chan struct{}
}

func newRepo(spec Spec, eng Engine, waiter Waiter, w *watch.Watcher, opts *Options) *repo {
	r := &repo{
		spec: spec, eng: eng, waiter: waiter, watcher: w, opts: opts,
		log:     opts.Logger.With("repo", spec.Repo, "lane", spec.lane(), "dir", spec.Dir),
		status:  &statusBox{s: RepoStatus{Repo: spec.Repo, Lane: spec.lane(), Dir: spec.Dir, Server: spec.Server}, show: eng.Show},
		pullReq: make(chan waitAnswer),
		kick:    make(chan struct{}, 1),
		reached: make(chan struct{}, 1),
		own:     newOwnWrites(eng.Identify),
		recheck: make(chan struct{}, 1),
	}
	if spec.KeyFile != "" {
		r.keyAtOpen = fileDigest(spec.KeyFile)
	}
	return r
}

// Run syncs the repo until ctx is done, then flushes pending changes within
// the flush timeout.
func (r *repo) Run(ctx context.Context) error {
	r.log.Info("watching team directory", "server", r.spec.Server, "source", r.spec.Source)
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error { return r.watcher.Run(gctx) })
	g.Go(func() error { return r.live(gctx) })
	g.Go(func() error { return r.work(gctx) })
	g.Go(func() error { return r.watchCredential(gctx) })
	if w, ok := readsAhead(r.spec, r.eng); ok {
		g.Go(func() error { return r.readAhead(gctx, w) })
	}
	err := g.Wait()
	// The worker is done: what the watcher saw since its last batch is
	// taken here, for the flush to push.
	r.takeBatch(r.watcher.Unbatched())
	r.flush(ctx)
	return err
}

// poke asks the worker to push now, forgetting any suppression.
func (r *repo) poke() {
	select {
	case r.kick <- struct{}{}:
	default:
	}
}

// gotThrough tells a change wait backing off from a failure that a pull
// or push got through to the server: the wait reconnects at once.
func (r *repo) gotThrough() {
	select {
	case r.reached <- struct{}{}:
	default:
	}
}

// flush makes a last push so that no change waiting in the debounce is lost
// at shutdown, bounded by the flush timeout.
func (r *repo) flush(ctx context.Context) {
	if r.status.stopped() {
		return
	}
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), r.opts.FlushTimeout)
	defer cancel()
	rep, err := r.eng.Push(fctx)
	r.recordPush(rep, err)
	if err != nil {
		r.log.Warn("final push failed", "err", err)
		return
	}
	r.log.Info("flushed pending changes", "pushed", len(rep.Pushed))
}

// takeBatch tells the engine and the status of the changes in a watcher
// batch, and reports whether it holds one of the user's: a batch of
// ignored paths alone, or of the last pull's own writes, holds none. The
// engine then scans only the paths named (tellEngine), so every batch the
// watcher gives, the last one at shutdown included, goes through here.
// The worker calls it, or Run once the worker is done.
func (r *repo) takeBatch(b watch.Batch) bool {
	if b = r.relevant(b); !b.Rescan && len(b.Paths) == 0 {
		return false
	}
	if r.own.only(b) {
		r.log.Debug(msgOwnWrites, "paths", len(b.Paths))
		return false
	}
	r.log.Debug("changes batched", "paths", len(b.Paths), "rescan", b.Rescan)
	r.tellEngine(b)
	r.noteChanges(b)
	return true
}

// noteChanges records a batch's paths as pending, but for those still as
// the last pull left them, and directories (ownWrites.asLeft): a batch
// holding a user change, or a rescan, may also carry the pull's own writes,
// which are not waiting to be pushed. The Debouncing list leaves them out
// the same way.
func (r *repo) noteChanges(b watch.Batch) {
	paths := slices.DeleteFunc(slices.Clone(b.Paths), r.own.asLeft)
	r.status.update(func(s *RepoStatus) {
		for _, p := range paths {
			if !slices.Contains(s.Pending, p) {
				s.Pending = append(s.Pending, p)
			}
		}
		slices.Sort(s.Pending)
	})
}

// noteUnsent makes the pending list the files the engine has not sent,
// after a push that did not go through: the files changed since the last
// push are all in the engine's view by then, and one changed back since
// is no longer waiting. When the engine cannot tell, the list is kept.
func (r *repo) noteUnsent() {
	keys, err := r.eng.Unsent()
	if err != nil {
		r.log.Debug("cannot list unsent files", "err", err)
		return
	}
	r.status.update(func(s *RepoStatus) { s.Pending = keys })
}

// traced returns ctx with a retry trace that shows the client's retries of
// source's requests in the status.
func (r *repo) traced(ctx context.Context, source string) context.Context {
	return memsync.WithRetryTrace(ctx, func(rt memsync.Retry) {
		now := time.Now()
		if rt.Unreached {
			r.status.unreachable(now)
		} else {
			r.status.contact(now)
		}
		r.status.setRetry(source, now.Add(rt.Wait), rt.Cause)
	})
}

func (r *repo) unsuppress() {
	r.status.update(func(s *RepoStatus) { s.Suppressed = "" })
}

// stopsPushes reports whether err is a refusal of the repo's pushes that
// retrying the same content cannot fix: content refused for good, no room
// for more entries, or a token that may read the repo but not write it.
// Pushes stop until the files or the config change; pulls go on.
func stopsPushes(err error) bool {
	switch memsync.Classify(err) {
	case memsync.Refused, memsync.RepoFull, memsync.ReadOnly:
		return true
	}
	return false
}
