// Package memsync keeps one repo's team memory directory and a teammemd
// server in agreement, following PROTOCOL.md section 6: it pulls (server wins
// per key), pushes local deltas in batches, keeps every losing version as a
// conflict copy outside the team directory, refuses mass deletions, and
// persists per-repo state atomically under locks on the state and on the
// team directory. It also holds the HTTP client the daemon uses; the
// provenance record of who last changed each key
// (RefreshProvenance, LoadProvenance); and SharedNotes, a read-only look
// at which notes the server holds, for readers outside the engine.
package memsync

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/teammemd/teammemd/scan"
	"github.com/teammemd/teammemd/server/api"
)

// SecretScanner finds secrets in a file and in a key's name before either
// is pushed.
type SecretScanner interface {
	File(ctx context.Context, path string, data []byte) ([]scan.Finding, error)
	Key(ctx context.Context, key string) ([]scan.Finding, error)
}

// Config names one repo to sync.
type Config struct {
	// Dir is the team directory.
	Dir string
	// Repo is the repo slug.
	Repo string
	// Server is the server's base URL; it must match Options.Client.
	Server string
	// StateDir is the root of teammemd's state: per-repo state lives in
	// repos/<slug>@<host>/ and conflict copies in conflicts/<slug>@<host>/.
	StateDir string
	// AllowMassDelete lets a push delete more than half the known keys.
	AllowMassDelete bool
	// ShareUserNotes lets notes of type user (personal by Claude Code's
	// rules) be pushed; without it they are held back.
	ShareUserNotes bool
	// Lane, when set, is the ID of the personal lane (PROTOCOL.md section
	// 16) the engine syncs instead of a team repo: Dir is then a Claude
	// Code project's memory directory (or, with LaneFiles UserFiles,
	// its config directory), of which only what LaneFiles holds syncs,
	// notes of type user among them; and the state lives apart from every
	// team repo's.
	Lane      string
	LaneFiles LaneFiles
}

// checkName checks the repo or lane c names. A lane's state is named
// after its lane ID, and its notes of type user sync: they are what the
// lane is for.
func (c Config) checkName() (Config, error) {
	if c.Lane == "" {
		if err := api.ValidateSlug(c.Repo); err != nil {
			return c, fmt.Errorf("memsync: %w", err)
		}
		return c, nil
	}
	if !api.ValidLaneID(c.Lane) {
		return c, fmt.Errorf("memsync: personal lane %q is not a lane ID", c.Lane)
	}
	c.Repo = lanePrefix + c.Lane
	c.ShareUserNotes = true
	return c, nil
}

// Remote is what the engine asks of the server: *Client, or a transport
// that stands in for it, such as a personal lane's, which seals what it
// sends and opens what it gets.
type Remote interface {
	Host() string
	StoreID() string
	Get(ctx context.Context, repo, ifNoneMatch string) (api.FullResponse, bool, error)
	Hashes(ctx context.Context, repo string) (api.HashesResponse, error)
	Put(ctx context.Context, repo, ifMatch string, body []byte) (api.PutResponse, error)
}

// Options are the parts an Engine uses.
type Options struct {
	// Client is the team server's client; a personal lane's engine has
	// none (its history and review are not the server's to show).
	Client *Client
	// Remote, when set, stands in for Client in pulls and pushes.
	Remote Remote
	// Scanner, when set, keeps files with secrets from being pushed, and
	// keys whose name holds one from syncing at all.
	Scanner SecretScanner
	// Logger receives the engine's log; the engine adds the repo to every
	// line itself, so Logger should not carry a repo attribute.
	Logger *slog.Logger
	// Now returns the current time (default time.Now).
	Now func() time.Time
	// ReportShown says the caller shows each run's Report to the user (a
	// sync by hand): the engine then does not also log the files the report
	// lists as held back for a secret or unable to sync, or the conflict
	// copies it lists.
	ReportShown bool
}

// knownDir is what an engine has learned about its team directory; it
// holds while the directory is the same one (same device and inode).
type knownDir struct {
	id              os.FileInfo
	caseInsensitive bool
	racy            time.Duration // its file system's racy window
	swept           bool          // the first run's sweep is done
}

// Engine syncs one repo. Its methods are safe for concurrent use; they run
// one at a time, and a lock file keeps other processes out meanwhile.
type Engine struct {
	cfg      Config
	client   *Client // nil for a personal lane
	remote   Remote
	scanner  SecretScanner
	log      *slog.Logger
	now      func() time.Time
	state    stateStore
	lockPath string
	conflict string // this repo's conflict copy directory
	mu       sync.Mutex
	checksum atomic.Pointer[string]
	storeID  atomic.Pointer[string] // the state's StoreID, as checksum
	// synced is the state as the last run saved it, never modified, for
	// HashesFrom; nil when none is kept.
	synced atomic.Pointer[State]
	// secretNames are the keys seen whose name holds a secret, to redact
	// them in errors; cleanNames those whose name holds none (nameRules);
	// both guarded by namesMu.
	namesMu     sync.Mutex
	secretNames map[string]bool
	cleanNames  map[string]struct{}
	// known is what the engine learned about its team directory (under mu).
	known knownDir
	// leftovers is set when a run leaves a file aside that the next run's
	// sweep must judge.
	leftovers atomic.Bool
	// guards are the guards' verdicts by key (under mu).
	guards map[string]guardEntry
	// secretsWarned is the sha256 of the content of each file last logged
	// as holding a secret, by key (under mu): warnSecretOnce.
	secretsWarned map[string][32]byte
	// skipsWarned is the reason each local file that cannot sync was last
	// logged for, by key (under mu): warnSkippedOnce.
	skipsWarned map[string]string
	// notTextWarned is the sha256 of the content of each file last logged
	// as not valid UTF-8 text, by key (under mu): warnNotTextOnce.
	notTextWarned map[string][32]byte
	// reportShown is Options.ReportShown.
	reportShown bool
	// provenance is this repo's provenance file (RefreshProvenance).
	provenance string
	// provKept is the record the last refresh wrote (RefreshProvenance).
	provKept keptProvenance
	// lastChain is the chain of writes of the last run that saved its
	// state, stored with synced (RefreshProvenance).
	lastChain atomic.Pointer[writeChain]
	// track is what a watcher told of the directory (NoteChanges).
	track changeTrack
	// announcing is set while an AnnounceWrite is on its way.
	announcing atomic.Bool
	// warm is what Warm read ahead for the next push.
	warm warmCache
}

// New returns an engine for cfg.
func New(cfg Config, opts Options) (*Engine, error) {
	remote := opts.Remote
	if remote == nil && opts.Client != nil {
		remote = opts.Client
	}
	if remote == nil {
		return nil, errors.New("memsync: no client")
	}
	cfg, err := cfg.checkName()
	if err != nil {
		return nil, err
	}
	if cfg.Dir == "" || cfg.StateDir == "" {
		return nil, errors.New("memsync: team directory and state directory are required")
	}
	dir, err := filepath.Abs(cfg.Dir)
	if err != nil {
		return nil, fmt.Errorf("memsync: team directory: %w", err)
	}
	cfg.Dir = dir
	e := &Engine{cfg: cfg, client: opts.Client, remote: remote, scanner: opts.Scanner, log: opts.Logger, now: opts.Now,
		reportShown: opts.ReportShown}
	if e.log == nil {
		e.log = slog.New(slog.DiscardHandler)
	}
	e.log = e.log.With("repo", cfg.Repo)
	if e.now == nil {
		e.now = time.Now
	}
	repoDir, err := stateDirOf(cfg.StateDir, cfg.Repo, remote.Host(), cfg.Dir, true)
	if err != nil {
		return nil, fmt.Errorf("memsync: %w", err)
	}
	e.state.path = filepath.Join(repoDir, stateFile)
	e.lockPath = filepath.Join(repoDir, "lock")
	e.provenance = filepath.Join(repoDir, provenanceFile)
	e.conflict = filepath.Join(cfg.StateDir, "conflicts", filepath.Base(repoDir))
	store := stateStore{path: e.state.path}
	if st, _, err := store.loadReadOnly(cfg.Repo, remote.Host()); err == nil {
		e.setChecksum(st.LastKnownChecksum)
		e.storeID.Store(&st.StoreID)
	}
	return e, nil
}

// Checksum returns the repo checksum after the last pull or push, for the
// change wait's If-None-Match.
func (e *Engine) Checksum() string {
	if p := e.checksum.Load(); p != nil {
		return *p
	}
	return ""
}

func (e *Engine) setChecksum(s string) { e.checksum.Store(&s) }

// StatePath returns where the repo's state file lives.
func (e *Engine) StatePath() string { return e.state.path }

// errNotTeam is the error of a team server's feature (history, review)
// asked of a personal lane's engine.
var errNotTeam = errors.New("a personal lane has no server history or review")

// teamClient is the team server's client, or errNotTeam.
func (e *Engine) teamClient() (*Client, error) {
	if e.client == nil {
		return nil, errNotTeam
	}
	return e.client, nil
}

// Ignores reports whether a change at p, a path in the engine's directory
// as a watcher names it (a file or a directory), is none of the engine's:
// in a personal lane's directory, a path under or at a directory the lane
// passes over, or a file it does not hold. A team repo ignores nothing.
func (e *Engine) Ignores(p string) bool {
	if e.cfg.Lane == "" {
		return false
	}
	f := e.cfg.LaneFiles
	for dir := path.Dir(p); dir != "."; dir = path.Dir(dir) {
		if f.skipsDir(dir) {
			return true
		}
	}
	if f.Holds(p) {
		return false
	}
	return api.IsSyncableKey(p) || strings.HasPrefix(path.Base(p), ".") || f.skipsDir(p)
}

// session is one locked operation on the repo: its state and team dir.
type session struct {
	*Engine
	st  *State
	td  *teamDir
	rep *Report
	// unsyncable are the keys of the last scan that cannot sync (Report
	// Skipped), held those held back (Report Held), a directory's with a
	// trailing slash.
	unsyncable map[string]bool
	held       map[string]bool
	// restore is set while a pull writes again the files gone from an
	// emptied team directory.
	restore bool
	// hint is the repo's hashes as a change wait answered them, when the
	// session is a PullChanged: the pull asks for the values of the keys
	// they show changed alone.
	hint *api.HashesResponse
	// tracked is what the session may take from the watcher's notes, and
	// memo what the last scan found that the state does not keep: from
	// the run before, when the state came from the engine's memory.
	tracked trackedScan
	memo    *scanMemo
	// chain is the writes this run saw take the repo on, each named by
	// its answer (RefreshProvenance).
	chain writeChain
	// scannedWhole and scannedNamed say which scans the session made.
	scannedWhole, scannedNamed bool
	// maxEntries is the server's entry cap as a 413 of this push gave it,
	// 0 before one: each push learns it afresh, as the server's admin may
	// have raised it since the last.
	maxEntries int
	// noRoom is the last refusal for want of room (Rejection.forRoom) the
	// session's push met, nil before one: from then on the push sends no
	// file held back for room, which would only be refused again.
	noRoom *Rejection
}
