// Package servertest runs the real teammemd server for other packages'
// tests: the real handler over a real 127.0.0.1 listener on a real SQLite
// file in t.TempDir(), with a write token on every repo. A test can stop the
// server and start it again on the same address and database, to see what a
// client does while the server is away, or back it up and restore it.
package servertest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server"
	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/auth"
	"github.com/teammemd/teammemd/server/store"
	"github.com/teammemd/teammemd/server/store/sqlite"
)

// Server is a running (or stopped) test server.
type Server struct {
	// URL is the base URL, http://127.0.0.1:<port>, the same across Restart.
	URL string
	// Addr is the listen address, host:port.
	Addr string
	// Token is a write token on every repo ("**").
	Token string
	// Store is the open database; Restart replaces it.
	Store *sqlite.Store
	// Path is the database file.
	Path string

	cfg    config
	mu     sync.Mutex
	cancel context.CancelFunc
	done   chan error
}

type config struct {
	listen   func(addr string) (net.Listener, error)
	server   server.Config
	opts     server.Options
	auth     *auth.Config
	authOpts auth.Options
	wrap     func(*sqlite.Store) store.Store
}

// Option changes how the server runs.
type Option func(*config)

// WithLimits sets the protocol limits (zero fields keep the defaults).
func WithLimits(l api.Limits) Option { return func(c *config) { c.server.Limits = l } }

// WithScanner makes the server refuse PUTs in which sc finds a secret.
func WithScanner(sc server.EntryScanner) Option { return func(c *config) { c.opts.Scanner = sc } }

// WithRateLimit sets the rate limits (off by default); a zero field takes
// the server's default, so it turns both on unless rl says otherwise.
func WithRateLimit(rl server.RateLimit) Option { return func(c *config) { c.server.RateLimit = rl } }

// WithLogger sends the server's log to l (discarded by default).
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.opts.Logger = l } }

// WithAuth makes the server accept the credentials cfg turns on, its static
// tokens and its logins' bindings (unless opts names a Bindings) in the
// test database, instead of static tokens only.
func WithAuth(cfg auth.Config, opts auth.Options) Option {
	return func(c *config) { c.auth, c.authOpts = &cfg, opts }
}

// Config is the [server] section the test server starts from: the
// defaults of a config file but for the rate limits (per subject and of
// failed authentications per address) and history pruning, all off, so a
// test may send as many requests as it likes and read every revision back.
func Config() server.Config {
	return server.Config{
		RateLimit: server.RateLimit{RequestsPerSecond: -1, FailedAuthPerSecond: -1},
		History:   server.Retention{KeepVersions: -1},
	}
}

// WithListen makes the server listen with listen (a memnet network's, say)
// instead of on a 127.0.0.1 TCP port; Start asks it for "127.0.0.1:0" and
// Restart for the address it got.
func WithListen(listen func(addr string) (net.Listener, error)) Option {
	return func(c *config) { c.listen = listen }
}

// WithConfig edits the server's settings, which start as Config.
func WithConfig(edit func(*server.Config)) Option { return func(c *config) { edit(&c.server) } }

// WithOptions edits the server options directly; Store, Auth, Settings and
// Ready are set by the harness.
func WithOptions(edit func(*server.Options)) Option { return func(c *config) { edit(&c.opts) } }

// WithStoreWrap serves through what wrap makes of the database, such as
// a store that interleaves writes of its own; tokens are read from the
// database itself.
func WithStoreWrap(wrap func(*sqlite.Store) store.Store) Option {
	return func(c *config) { c.wrap = wrap }
}

// Start opens a database in t.TempDir(), creates the write token and serves
// on a new 127.0.0.1 port (or on what WithListen listens) until the test
// ends.
func Start(t testing.TB, opts ...Option) *Server {
	t.Helper()
	s := &Server{Path: filepath.Join(t.TempDir(), sqlite.FileName)}
	s.cfg.server = Config()
	s.cfg.listen = listenTCP
	for _, o := range opts {
		o(&s.cfg)
	}
	ln, err := s.cfg.listen("127.0.0.1:0")
	if err != nil {
		t.Fatalf("servertest: listen: %v", err)
	}
	s.Addr = ln.Addr().String()
	s.URL = "http://" + s.Addr
	if err := s.start(ln); err != nil {
		ln.Close()
		t.Fatalf("servertest: %v", err)
	}
	t.Cleanup(s.Stop)
	s.Token = s.CreateToken(t, "servertest", store.Grant{Pattern: "**", Level: store.LevelWrite})
	return s
}

// start opens the database and serves on ln.
func (s *Server) start(ln net.Listener) error {
	st, err := sqlite.Open(context.Background(), s.Path, sqlite.Options{})
	if err != nil {
		return fmt.Errorf("open store: %w", err)
	}
	opts := s.cfg.opts
	if opts.Settings, err = s.cfg.server.Settings(); err != nil {
		st.Close()
		return fmt.Errorf("settings: %w", err)
	}
	opts.Store = st
	if s.cfg.wrap != nil {
		opts.Store = s.cfg.wrap(st)
	}
	if opts.Auth, err = s.cfg.authenticator(st); err != nil {
		st.Close()
		return err
	}
	opts.Ready = nil
	opts.ShutdownTimeout = 5 * time.Second
	srv, err := server.New(opts)
	if err != nil {
		st.Close()
		return fmt.Errorf("new server: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	s.mu.Lock()
	s.Store, s.cancel, s.done = st, cancel, done
	s.mu.Unlock()
	return nil
}

// authenticator is the server's: its static tokens in st, and the modes
// WithAuth turns on, binding logins in st.
func (c config) authenticator(st authStore) (auth.Authenticator, error) {
	if c.auth == nil {
		return auth.NewTokenAuthenticator(st), nil
	}
	opts := c.authOpts
	if opts.Bindings == nil {
		opts.Bindings = st
	}
	modes, err := auth.New(*c.auth, st, opts)
	if err != nil {
		return nil, fmt.Errorf("auth: %w", err)
	}
	return modes, nil
}

// authStore is where the server's credentials are checked: its static
// tokens and its logins' bindings.
type authStore interface {
	store.Tokens
	store.IdentityBindings
}

// Stop shuts the server down (change waits end at once) and closes the
// database. Stopping a stopped server does nothing.
func (s *Server) Stop() {
	s.mu.Lock()
	cancel, done, st := s.cancel, s.done, s.Store
	s.cancel, s.done = nil, nil
	s.mu.Unlock()
	if cancel == nil {
		return
	}
	cancel()
	<-done
	_ = st.Close()
}

// Restart stops the server if it runs and starts it again on the same
// address and database.
func (s *Server) Restart(t testing.TB) {
	t.Helper()
	s.Stop()
	ln, err := listenAgain(s.cfg.listen, s.Addr)
	if err != nil {
		t.Fatalf("servertest: restart: %v", err)
	}
	if err := s.start(ln); err != nil {
		ln.Close()
		t.Fatalf("servertest: restart: %v", err)
	}
}

// RestartWith stops the server, applies opts on top of the options it ran
// with, as an admin who edits the config does, and starts it again on the
// same address and database.
func (s *Server) RestartWith(t testing.TB, opts ...Option) {
	t.Helper()
	s.Stop()
	for _, o := range opts {
		o(&s.cfg)
	}
	s.Restart(t)
}

func listenTCP(addr string) (net.Listener, error) { return net.Listen("tcp", addr) }

// listenAgain binds addr, retrying briefly while the old socket lets go.
func listenAgain(listen func(string) (net.Listener, error), addr string) (net.Listener, error) {
	var err error
	for range 50 {
		var ln net.Listener
		ln, err = listen(addr)
		if err == nil {
			return ln, nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return nil, fmt.Errorf("listen %s: %w", addr, err)
}

// CreateToken stores a new token for subject with grants and returns its
// secret.
func (s *Server) CreateToken(t testing.TB, subject string, grants ...store.Grant) string {
	t.Helper()
	s.mu.Lock()
	st := s.Store
	s.mu.Unlock()
	if st == nil {
		t.Fatal("servertest: CreateToken: no store")
	}
	secret, rec, err := auth.NewTokenRecord(subject, grants, time.Now())
	if err == nil {
		err = st.CreateToken(context.Background(), rec)
	}
	if err != nil {
		t.Fatalf("servertest: create token: %v", err)
	}
	return secret
}

// Running reports whether the server is serving.
func (s *Server) Running() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cancel != nil
}

// Backup stops the server, copies its database file as an operator's
// backup would, and starts it again; it returns the copy's path.
func (s *Server) Backup(t testing.TB) string {
	t.Helper()
	s.Stop()
	backup := filepath.Join(t.TempDir(), "backup.db")
	if err := copyFile(s.Path, backup); err != nil {
		t.Fatalf("servertest: backup: %v", err)
	}
	s.Restart(t)
	return backup
}

// Restore restores the database from backup as docs/07-backup-restore.md
// (SQLite) does: the server stopped, the backup copied in place of the
// database, a new store identity given to it, the server started again.
func (s *Server) Restore(t testing.TB, backup string) {
	t.Helper()
	s.Stop()
	if err := restoreFile(backup, s.Path); err != nil {
		t.Fatalf("servertest: restore: %v", err)
	}
	s.Restart(t)
}

// restoreFile puts the database backup at path, without the old one's
// write-ahead log, and gives it a new store identity.
func restoreFile(backup, path string) error {
	for _, suffix := range []string{"-wal", "-shm"} {
		if err := os.Remove(path + suffix); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	if err := copyFile(backup, path); err != nil {
		return err
	}
	st, err := sqlite.Open(context.Background(), path, sqlite.Options{})
	if err != nil {
		return err
	}
	if _, err := st.NewStoreID(context.Background()); err != nil {
		st.Close()
		return err
	}
	return st.Close()
}

func copyFile(from, to string) error {
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, data, 0o600)
}
