package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"path/filepath"

	"github.com/teammemd/teammemd/scan"
	"github.com/teammemd/teammemd/server"
	"github.com/teammemd/teammemd/server/store/sqlite"
)

// runServe runs the team memory server until ctx is done.
func runServe(ctx context.Context, args []string, _, stderr io.Writer) error {
	fs := newFlagSet("serve", stderr)
	listen := fs.String("listen", "", "`address` to listen on, host:port (default $TEAMMEMD_LISTEN, [server] listen, or "+server.DefaultListen+")")
	data := fs.String("data", "", "`directory` of the database (default $TEAMMEMD_DATA, [server] data_dir, or "+dataDir()+")")
	configPath := fs.String("config", "", "config `file` (default $TEAMMEMD_CONFIG, or config.toml in "+configDir()+")")
	tlsCert := fs.String("tls-cert", "", "serve HTTPS with the certificate (and chain) in this PEM `file` (default $"+envTLSCert+", [server] tls_cert); SIGHUP reloads it")
	tlsKey := fs.String("tls-key", "", "private key `file` of --tls-cert, PEM (default $"+envTLSKey+", [server] tls_key)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("serve takes no arguments, got %q", fs.Args())}
	}
	log := slog.New(slog.NewJSONHandler(stderr, nil))
	start := func() error {
		cfg, err := loadConfig(*configPath)
		if err != nil {
			return err
		}
		sc, err := serveConfig(withTLSFlags(cfg.Server, *tlsCert, *tlsKey), *listen, *data)
		if err != nil {
			return usageError{err}
		}
		return serve(ctx, sc, cfg.Scan, log)
	}
	return reportIn(ctx, log, "serve failed", start())
}

// serveConfig applies flags > environment > file > defaults to the listen
// address and the data directory, and fills in every other default.
func serveConfig(file server.Config, listen, data string) (server.Config, error) {
	sc := file
	sc.Listen = firstSet(listen, envOr("TEAMMEMD_LISTEN", ""), file.Listen, server.DefaultListen)
	sc.DataDir = firstSet(data, envOr("TEAMMEMD_DATA", ""), file.DataDir, dataDir())
	if err := sc.Validate(); err != nil {
		return sc, err
	}
	return sc.Resolve(), nil
}

func firstSet(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}

// serve opens the database, listens and serves until ctx is done.
func serve(ctx context.Context, sc server.Config, scanCfg scan.Config, log *slog.Logger) error {
	st, err := sqlite.Open(ctx, filepath.Join(sc.DataDir, sqlite.FileName), sqlite.Options{Logger: log})
	if err != nil {
		return err
	}
	defer st.Close()
	authn, err := serverAuth(ctx, sc, st, log)
	if err != nil {
		return err
	}
	opts := server.Options{
		Store: st, Auth: authn, Logger: log, Version: version,
		Limits: sc.Limits, OrganizationID: sc.OrganizationID, RateLimit: sc.RateLimit,
		MaxWaiters: sc.MaxWaiters, MaxWaitersPerSubject: sc.MaxWaitersPerSubject, History: sc.History, Ready: ready(log, sc.TLS()),
	}
	if sc.ScanEnabled() {
		// A key is whatever the client chose: no path allowlist may decide
		// the server's verdict.
		sec, err := scan.New(scanCfg, scan.WithLogger(log), scan.IgnorePathAllowlists())
		if err != nil {
			return fmt.Errorf("load secret scanner: %w", err)
		}
		opts.Scanner = sec
		logScanEngine(log)
	}
	srv, err := server.New(opts)
	if err != nil {
		return err
	}
	ln, stopReload, err := listen(ctx, sc, log)
	if err != nil {
		return err
	}
	defer stopReload()
	err = srv.Serve(ctx, ln)
	if nerr := sdNotify("STOPPING=1"); nerr != nil {
		log.Warn("notify systemd", "error", nerr)
	}
	if err != nil {
		return err
	}
	log.Info("server stopped")
	return nil
}

// ready logs the listen address and tells systemd the server is up.
func ready(log *slog.Logger, tls bool) func(net.Addr) {
	return func(addr net.Addr) {
		log.Info("listening", "addr", addr.String(), "tls", tls)
		if err := sdNotify("READY=1"); err != nil {
			log.Warn("notify systemd", "error", err)
		}
	}
}

// hintFirstToken logs how to create the first token on a database that has
// none, since no request can succeed without one.
func hintFirstToken(ctx context.Context, st *sqlite.Store, data string, log *slog.Logger) error {
	toks, err := st.ListTokens(ctx)
	if err != nil {
		return fmt.Errorf("list tokens: %w", err)
	}
	if len(toks) == 0 {
		log.Warn("no API tokens yet; create the first one", "command", firstTokenCommand(data))
	}
	return nil
}

// firstTokenCommand is the command line that creates a first token in the
// data directory data, ready to paste into a shell.
func firstTokenCommand(data string) string {
	return shellJoin("teammemd", "token", "create", "--data", data, "--subject", "you", "--repos", "**")
}

// logScanEngine says which engine scans PUTs, and warns when it is the slow
// one: a server scanning with Go's regexp takes about a quarter of the PUTs
// per second of one built with RE2 (BENCHMARKS.md).
func logScanEngine(log *slog.Logger) {
	if scan.Engine() == "re2" {
		log.Info("secret scan on", "engine", scan.Engine())
		return
	}
	log.Warn("secret scan on", "engine", scan.Engine(),
		"hint", "build the server with -tags gore2regex for about 4x the PUT throughput")
}
