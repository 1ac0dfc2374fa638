// Package server is the teammemd reference team memory server: the HTTP
// handlers of PROTOCOL.md (full pull, hash probe, upsert-merge push, change
// wait and entry history), authentication and per-repo access control,
// per-subject rate limiting and a limit on failed authentications per client
// address, Prometheus metrics, the access log, history
// pruning and a graceful Serve loop.
package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/sync/singleflight"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/auth"
	"github.com/teammemd/teammemd/server/store"
	"github.com/teammemd/teammemd/server/wake"
)

// EntryScanner finds secrets in a PUT before it is stored: in every value
// and in every key's name.
type EntryScanner interface {
	// ScanEntries returns, by key, the sorted ids of the rules that matched
	// each value holding a secret; empty when every value is clean.
	ScanEntries(ctx context.Context, entries map[string]string) (map[string][]string, error)
	// ScanKeys returns, by key, the sorted ids of the rules that matched
	// each key whose name holds a secret; empty when every name is clean.
	ScanKeys(ctx context.Context, keys []string) (map[string][]string, error)
}

// Waker tells change waits when a repo may have changed. The default, an
// in-process wake.Broker, hears only of the writes made through this server;
// replicas sharing one database use a Waker that also hears of the writes the
// others commit, such as the PostgreSQL store's LISTEN/NOTIFY one. A Waker
// that can tell whether it hears those (a Ping(ctx) error method) is checked
// by /readyz.
type Waker interface {
	// Subscribe returns a channel closed once repo may have changed after
	// the call, and a function to call when the caller stops waiting.
	Subscribe(repo string) (changed <-chan struct{}, release func())
	// Publish reports that this server committed a change to repo.
	Publish(repo string)
}

// Options configure a Server. Store and Auth are required.
type Options struct {
	Store store.Store
	Auth  auth.Authenticator
	// Scanner, when set, refuses PUTs in which a value, or the name of a key
	// written or deleted, holds a secret (422), and redacts a key whose name
	// holds one wherever an error would echo it.
	Scanner EntryScanner
	// Waker wakes change waits; nil means an in-process wake.Broker, right
	// for a store that no other server process writes.
	Waker Waker
	// Logger receives the access log and errors; nil discards them.
	Logger *slog.Logger
	// Settings are the [server] settings the server runs with, from
	// Config.Settings; the zero value runs it with the defaults.
	Settings Settings
	// Registry receives the server's metrics; nil means a registry of its
	// own. /metrics serves it when it is also a prometheus.Gatherer.
	Registry prometheus.Registerer
	// Ready, when set, is called once Serve accepts connections.
	Ready func(addr net.Addr)
	// ShutdownTimeout bounds a graceful shutdown; 0 means 10 s.
	ShutdownTimeout time.Duration
	// Version is published at /.well-known/teammemd.
	Version string
	// MCP, when set and the settings leave the endpoint on, serves the
	// Model Context Protocol at /mcp to the callers the API admits, each
	// found by CallerFrom in its request's context.
	MCP http.Handler
}

// Server answers the team memory API over a Store.
type Server struct {
	store   *instrumentedStore
	auth    auth.Authenticator
	scanner EntryScanner
	waker   Waker
	// recent, when set, holds the states of this server's own commits:
	// the waits they wake take them instead of a read (see ownCommit).
	recent recentReader
	// warmer, when set, readies the store's writer for an announced write;
	// warming is set while one warm-up runs (warmWrite).
	warmer  writeWarmer
	warming atomic.Bool
	// lastRequest is when the last request came, in Unix ns; each request
	// also leaves a wake in watchWake, for a store watch that sleeps until
	// one comes (watchStore).
	lastRequest atomic.Int64
	watchWake   chan struct{}
	// values holds what this server's last commits wrote, for the change
	// waits they answer (waitvalues.go).
	values  recentValues
	log     *slog.Logger
	limits  api.Limits
	org     string
	history Retention
	// deletions bounds each repo's deletion markers at every write.
	deletions store.DeletionBound
	// repos are the [[server.repo]] settings; proposals keeps the writes
	// held for review, nil when the store cannot.
	repos     []RepoConfig
	proposals store.Proposals
	// replicas shares repos with the other replicas of a shared store;
	// nil on a store of one server.
	replicas *replicas
	ready    func(net.Addr)
	stopTO   time.Duration
	version  string
	mcp      http.Handler

	limiter    *keyLimiter // per subject
	failedAuth *keyLimiter // failed authentications per client address
	proxies    proxies
	publicURL  string // [server.ui] url: the scheme and host clients reach the server at, or ""
	hashBodies *bodyCache
	metrics    *metrics
	waitSlots  *waitSlots
	identity   *storeIdentity
	hashReads  singleflight.Group // reads of a repo's hashes shared by change waits
	lot        parkLot            // parked change waits
	ui         http.Handler       // the web view; nil when off
	handler    http.Handler
	now        func() time.Time

	// personal keeps the personal lanes, nil when the server does not
	// offer them; quota bounds each subject's.
	personal store.Personal
	quota    store.Quota

	stopping     chan struct{} // closed when shutdown begins: ends change waits
	stopOnce     sync.Once
	serveStarted atomic.Bool
}

// New returns a Server for opts.
func New(opts Options) (*Server, error) {
	if opts.Store == nil {
		return nil, errors.New("server: Options.Store is required")
	}
	if opts.Auth == nil {
		return nil, errors.New("server: Options.Auth is required")
	}
	cfg := opts.Settings.Config()
	trusted, err := parseProxies(cfg.TrustedProxies)
	if err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	m, gatherer, err := newMetrics(opts.Registry)
	if err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Server{
		watchWake:  make(chan struct{}, 1),
		store:      &instrumentedStore{Store: opts.Store, m: m},
		auth:       opts.Auth,
		scanner:    opts.Scanner,
		waker:      opts.Waker,
		log:        log,
		limits:     cfg.Limits,
		org:        cfg.OrganizationID,
		history:    cfg.History,
		deletions:  cfg.Deletions.Bound(),
		repos:      cfg.Repos,
		ready:      opts.Ready,
		stopTO:     opts.ShutdownTimeout,
		version:    opts.Version,
		limiter:    newKeyLimiter(cfg.RateLimit.RequestsPerSecond, cfg.RateLimit.Burst, maxLimiters),
		failedAuth: newKeyLimiter(cfg.RateLimit.FailedAuthPerSecond, cfg.RateLimit.FailedAuthBurst, maxLimiters),
		proxies:    trusted,
		publicURL:  strings.TrimSuffix(cfg.UI.URL, "/"),
		hashBodies: newBodyCache(maxCachedBodyBytes),
		metrics:    m,
		waitSlots:  newWaitSlots(cfg.MaxWaiters, cfg.MaxWaitersPerSubject),
		now:        time.Now,
		stopping:   make(chan struct{}),
		lot:        parkLot{repos: map[string]*parkedRepo{}},
	}
	if cfg.MCPEnabled() {
		s.mcp = opts.MCP
	}
	if p, ok := opts.Store.(store.Personal); ok && cfg.Personal.On() {
		s.personal, s.quota = p, cfg.Personal.Quota()
	}
	if s.stopTO <= 0 {
		s.stopTO = 10 * time.Second
	}
	if p, ok := opts.Store.(store.Proposals); ok {
		s.proposals = p
	} else if slices.ContainsFunc(cfg.Repos, func(r RepoConfig) bool { return r.Review == ReviewRequired }) {
		return nil, errors.New("server: [[server.repo]] requires review, but the store cannot hold proposals")
	}
	if rs, ok := opts.Store.(store.ReplicaSettings); ok {
		if s.replicas, err = newReplicas(rs, cfg.Repos, s.log, m.replicasDiffer.Set); err != nil {
			return nil, fmt.Errorf("server: %w", err)
		}
	}
	if s.waker == nil {
		s.waker = wake.NewBroker()
		s.recent, _ = opts.Store.(recentReader) // only this server's commits wake its waits
	}
	s.warmer, _ = opts.Store.(writeWarmer)
	s.identity = &storeIdentity{now: func() time.Time { return s.now() }}
	if id, ok := opts.Store.(storeIdentifier); ok {
		s.identity.src = id
	}
	if s.ui, err = s.newUI(opts.Store, cfg); err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	s.handler = s.routes(gatherer)
	return s, nil
}

// Handler returns the server's HTTP handler.
func (s *Server) Handler() http.Handler { return s.handler }

// Timeouts of the HTTP server. The write timeout covers the longest change
// wait (MaxWait plus 10% jitter) with room to send the answer.
const (
	readHeaderTimeout = 10 * time.Second
	readTimeout       = 60 * time.Second
	idleTimeout       = 120 * time.Second
	writeMargin       = 30 * time.Second
)

// Serve answers requests on ln until ctx is done, then shuts down gracefully:
// it stops accepting, ends change waits at once and gives requests in flight
// up to the shutdown timeout. It returns nil after a shutdown caused by ctx.
// A Server serves at most once. On a store shared by replicas it first
// records its [[server.repo]] entries and learns the other replicas', and
// returns an error, without serving, when it cannot.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	if !s.serveStarted.CompareAndSwap(false, true) {
		return errors.New("server: Serve called twice")
	}
	hs := &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		WriteTimeout:      s.limits.MaxWait + s.limits.MaxWait/10 + writeMargin,
		IdleTimeout:       idleTimeout,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	if s.replicas != nil {
		// Know the peers' settings before the first write: without them
		// this replica could store writes a peer holds for review.
		if err := s.replicas.exchange(ctx); err != nil {
			ln.Close()
			if ctx.Err() != nil {
				return nil // stopped before it served
			}
			return fmt.Errorf("server: learn the other replicas' [[server.repo]] settings before serving: %w", err)
		}
	}
	bg, stopBackground := context.WithCancel(ctx)
	var wg sync.WaitGroup
	s.startBackground(bg, &wg)
	defer func() {
		stopBackground()
		wg.Wait()
	}()

	serveErr := make(chan error, 1)
	go func() { serveErr <- hs.Serve(ln) }()
	if s.ready != nil {
		s.ready(ln.Addr())
	}
	select {
	case err := <-serveErr:
		s.beginStop()
		return fmt.Errorf("server: serve %s: %w", ln.Addr(), err)
	case <-ctx.Done():
	}
	return s.shutdown(hs, serveErr)
}

// shutdown ends change waits, then shuts hs down within the shutdown
// timeout, closing whatever is still open after it.
func (s *Server) shutdown(hs *http.Server, serveErr <-chan error) error {
	s.beginStop()
	sctx, cancel := context.WithTimeout(context.Background(), s.stopTO)
	defer cancel()
	err := hs.Shutdown(sctx)
	s.closeLot(sctx)
	if err != nil {
		s.log.Warn("shutdown timed out, closing connections", "err", err)
		err = hs.Close()
	}
	if serr := <-serveErr; serr != nil && !errors.Is(serr, http.ErrServerClosed) {
		return fmt.Errorf("server: serve: %w", serr)
	}
	if err != nil {
		return fmt.Errorf("server: close: %w", err)
	}
	return nil
}

// beginStop makes every change wait answer at once.
func (s *Server) beginStop() {
	s.stopOnce.Do(func() { close(s.stopping) })
}

// startBackground starts history pruning, the replicas' exchange and the
// watch of the store's identity and token revocations, which end with ctx.
func (s *Server) startBackground(ctx context.Context, wg *sync.WaitGroup) {
	wg.Go(func() { s.watchStore(ctx) })
	if s.history.Enabled() {
		wg.Go(func() { s.pruneLoop(ctx) })
	}
	if s.replicas != nil {
		wg.Go(func() { s.replicas.run(ctx) })
	}
}
