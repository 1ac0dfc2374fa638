package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"

	"github.com/spf13/cobra"
	"golang.org/x/sync/errgroup"

	"github.com/teammemd/teammemd/internal/shell"
	"github.com/teammemd/teammemd/scan"
	"github.com/teammemd/teammemd/server"
	"github.com/teammemd/teammemd/server/store"
	"github.com/teammemd/teammemd/server/store/postgres"
)

// newServeCmd runs the team memory server until ctx is done.
func newServeCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the team memory server",
		Long: `Run the team memory server until interrupted: HTTP (or HTTPS with
--tls-cert and --tls-key) on --listen, over the SQLite database in --data or
the PostgreSQL database in --store. It logs JSON to stderr, tells systemd when
it is ready, and on SIGHUP reloads its certificate.`,
		Example: `  teammemd serve
  teammemd serve --listen 0.0.0.0:8787 --tls-cert /etc/teammemd/tls/fullchain.pem --tls-key /etc/teammemd/tls/privkey.pem
  teammemd serve --store postgres://teammemd@db.internal/teammemd --migrate-only`,
		Args: noArgs,
	}
	fs := cmd.Flags()
	var f serveFlags
	fs.StringVar(&f.listen, "listen", "", "`address` to listen on, host:port (default $TEAMMEMD_LISTEN, [server] listen, or "+server.DefaultListen+")")
	fs.StringVar(&f.data, "data", "", "`directory` of the SQLite database (default $TEAMMEMD_DATA, [server] data_dir, or "+dataDir()+")")
	fs.StringVar(&f.store, "store", "", "PostgreSQL database shared by replicas, a postgres://user:password@host/db `URL` (default $TEAMMEMD_STORE or [server] store; unset, the SQLite database in --data)")
	migrateOnly := fs.Bool("migrate-only", false, "create or migrate the database schema, then exit")
	fs.StringVar(&f.config, "config", "", "config `file` (default $TEAMMEMD_CONFIG, or config.toml in "+configDir()+")")
	fs.StringVar(&f.tlsCert, "tls-cert", "", "serve HTTPS with the certificate (and chain) in this PEM `file` (default $"+envTLSCert+", [server] tls_cert); SIGHUP reloads it")
	fs.StringVar(&f.tlsKey, "tls-key", "", "private key `file` of --tls-cert, PEM (default $"+envTLSKey+", [server] tls_key)")
	cmd.RunE = body(func(ctx context.Context, args []string, _, stderr io.Writer) error {
		log := slog.New(slog.NewJSONHandler(stderr, nil))
		start := func() error {
			settings, loc, scanCfg, err := f.settings()
			if err != nil {
				return configError{err}
			}
			if *migrateOnly {
				return migrateStore(ctx, loc, log)
			}
			return serve(ctx, settings, loc, scanCfg, log)
		}
		return reportIn(ctx, log, "serve failed", start())
	})
	return cmd
}

// serveFlags are the flags of serve that stand for [server] settings.
type serveFlags struct {
	config                               string
	listen, data, store, tlsCert, tlsKey string
}

// settings reads the config file, applies the flags and the environment
// to its [server] section and validates every section, once: the server is
// built from the settings it returns, with the store's location and the
// scanner's section. Its error is a config the server cannot start with,
// whichever of file, environment and flags set the bad value: restarting
// cannot fix it (exit 78).
func (f serveFlags) settings() (server.Settings, location, scan.Config, error) {
	cfg, read, err := readConfig(f.config)
	if err != nil {
		return server.Settings{}, location{}, scan.Config{}, err
	}
	loc, err := f.apply(&cfg.Server)
	if err != nil {
		return server.Settings{}, location{}, scan.Config{}, err
	}
	settings, err := cfg.validate()
	if err != nil {
		return server.Settings{}, location{}, scan.Config{}, inSettings(read.path, read.lines(err, f.check))
	}
	return settings, loc, cfg.Scan, nil
}

// check applies the flags and the environment to cfg's [server] section
// and validates every section, as settings does.
func (f serveFlags) check(cfg Config) error {
	if _, err := f.apply(&cfg.Server); err != nil {
		return err
	}
	_, err := cfg.validate()
	return err
}

// inSettings names the config file the settings err is about came from,
// if there is one, with the flags and environment that override it.
func inSettings(read string, err error) error {
	if read == "" {
		return err
	}
	return fmt.Errorf("config %s, with flags and environment: %w", read, err)
}

// apply sets flags > environment > file on sc, the [server] section of the
// config file, and returns where the store is. Unset, the listen address
// takes its default with the rest of the section.
func (f serveFlags) apply(sc *server.Config) (location, error) {
	sc.Listen = cmp.Or(f.listen, os.Getenv("TEAMMEMD_LISTEN"), sc.Listen)
	sc.TLSCert = cmp.Or(f.tlsCert, os.Getenv(envTLSCert), sc.TLSCert)
	sc.TLSKey = cmp.Or(f.tlsKey, os.Getenv(envTLSKey), sc.TLSKey)
	loc, err := resolveLocation(f.store, f.data, *sc)
	if err != nil {
		return loc, err
	}
	sc.Store, sc.DataDir = loc.url, loc.dataDir
	return loc, nil
}

// migrateStore opens the store, which creates or migrates its schema, and
// closes it.
func migrateStore(ctx context.Context, loc location, log *slog.Logger) error {
	st, _, err := openBackend(ctx, loc, log)
	if err != nil {
		return err
	}
	log.Info("database schema is current", "store", loc.String())
	return st.Close()
}

// serve listens, opens the database and serves until ctx is done. It
// listens first, so that a port already taken stops it before it creates
// or migrates a database.
func serve(ctx context.Context, settings server.Settings, loc location, scanCfg scan.Config, log *slog.Logger) error {
	sc := settings.Config()
	ln, stopReload, err := listen(ctx, sc, log)
	if err != nil {
		return err
	}
	defer stopReload()
	defer ln.Close()
	stopExtending := extendStart(startExtensionEvery, log)
	st, waker, err := openBackend(ctx, loc, log)
	stopExtending()
	if err != nil {
		return err
	}
	defer st.Close()
	log.Info("store open", "store", loc.String())
	authn, err := serverAuth(ctx, sc, st, loc, log)
	if err != nil {
		return err
	}
	opts := server.Options{
		Store: st, Auth: authn, Logger: log, Version: version,
		Settings: settings, Ready: ready(log, sc.TLS()),
	}
	if sc.ScanEnabled() {
		// A key is whatever the client chose: no path allowlist may decide
		// the server's verdict.
		sec, err := scan.New(scanCfg, scan.WithLogger(log), scan.IgnorePathAllowlists())
		if err != nil {
			return fmt.Errorf("load secret scanner: %w", err)
		}
		opts.Scanner = sec
		log.Info("secret scan on")
	}
	if waker != nil {
		opts.Waker = waker
	}
	if opts.MCP, err = serveMCP(sc, log); err != nil {
		return err
	}
	srv, err := server.New(opts)
	if err != nil {
		return err
	}
	err = runServer(ctx, srv, ln, waker)
	if nerr := sdNotify("STOPPING=1"); nerr != nil {
		log.Warn("notify systemd", "err", nerr)
	}
	if err != nil {
		return err
	}
	log.Info("server stopped")
	return nil
}

// runServer serves on ln, and runs the waker beside the server when there
// is one, until ctx is done or the server fails.
func runServer(ctx context.Context, srv *server.Server, ln net.Listener, waker *postgres.Waker) error {
	if waker == nil {
		return srv.Serve(ctx, ln)
	}
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error { return waker.Run(gctx) })
	g.Go(func() error {
		defer stop()
		return srv.Serve(gctx, ln)
	})
	return g.Wait()
}

// ready logs the listen address and tells systemd the server is up.
func ready(log *slog.Logger, tls bool) func(net.Addr) {
	return func(addr net.Addr) {
		log.Info("listening", "addr", addr.String(), "tls", tls)
		if err := sdNotify("READY=1"); err != nil {
			log.Warn("notify systemd", "err", err)
		}
	}
}

// hintFirstToken logs how to create the first token on a database that has
// none, since no request can succeed without one.
func hintFirstToken(ctx context.Context, st store.Tokens, loc location, log *slog.Logger) error {
	toks, err := st.ListTokens(ctx)
	if err != nil {
		return fmt.Errorf("list tokens: %w", err)
	}
	if len(toks) == 0 {
		log.Warn("no API tokens yet; create the first one", "command", firstTokenCommand(loc))
	}
	return nil
}

// firstTokenCommand is the command line that creates a first token in the
// store at loc, ready to paste into a shell (a PostgreSQL password shows as
// xxxxx).
func firstTokenCommand(loc location) string {
	args := append([]string{"teammemd", "token", "create"}, loc.flagArgs()...)
	return shell.Join(append(args, "--subject", "you", "--repos", "**")...)
}
