package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"syscall"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/teammemd/teammemd/scan"
	memsync "github.com/teammemd/teammemd/sync"
	"github.com/teammemd/teammemd/sync/daemon"
	"github.com/teammemd/teammemd/watch"
)

// runFlags are the flags of "teammemd run".
type runFlags struct {
	config, dir, repo, socket, logFormat string
	client                               clientFlags
}

func runDaemon(ctx context.Context, args []string, _, stderr io.Writer) error {
	fs := newFlagSet("run", stderr)
	var f runFlags
	fs.StringVar(&f.config, "config", "", "config file (default $TEAMMEMD_CONFIG, then ~/.config/teammemd/config.toml)")
	fs.StringVar(&f.dir, "dir", "", "team directory to sync (with --repo: one repo, no [daemon] repos)")
	fs.StringVar(&f.repo, "repo", "", "repo slug of --dir")
	f.client.register(fs)
	fs.StringVar(&f.socket, "socket", "", "control socket (default "+daemon.SocketPath(runtimeDir())+")")
	fs.StringVar(&f.logFormat, "log-format", "text", "log format: text or json")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if (f.dir == "") != (f.repo == "") {
		return usageError{errors.New("--dir and --repo go together")}
	}
	log, err := newLogger(stderr, f.logFormat)
	if err != nil {
		return usageError{err}
	}
	cfg, err := loadConfig(f.config)
	if err != nil {
		return err
	}
	return serveDaemon(ctx, f, cfg, log)
}

// serveDaemon builds the daemon, runs it and reloads it on SIGHUP.
func serveDaemon(ctx context.Context, f runFlags, cfg Config, log *slog.Logger) error {
	plan, err := planFor(f, cfg)
	if err != nil {
		return err
	}
	sockPath := cmp.Or(f.socket, daemon.SocketPath(runtimeDir()))
	ln, err := daemon.Listen(sockPath)
	if err != nil {
		return err
	}
	state := f.client.resolve(cfg.Client).StateDir
	rules := &tokenRules{}
	rules.set(newTokenRule(f.client, cfg.Client))
	sc, err := clientScanner(cfg.Scan, state, log)
	if err != nil {
		ln.Close()
		return err
	}
	// Compiling the ruleset leaves garbage several times the size of the
	// rules; hand it back before settling in.
	debug.FreeOSMemory()
	d, err := daemon.New(daemon.Options{
		Logger:        log,
		Open:          engineOpener(state, sc, rules, log),
		Watch:         watch.Options{Debounce: cfg.Daemon.Debounce, MaxWait: cfg.Daemon.MaxWait, Rescan: cfg.Daemon.Rescan},
		Control:       ln,
		Version:       version,
		OnReady:       func() { notify(log, "READY=1") },
		ReleaseMemory: debug.FreeOSMemory,
	})
	if err != nil {
		ln.Close()
		return err
	}
	log.Info("daemon starting", "repos", len(plan.Specs), "socket", sockPath)
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error { return d.Run(gctx, plan) })
	g.Go(func() error { return reloadOnSignal(gctx, hup, d, f, rules, log) })
	g.Go(func() error { return flushScanCache(gctx, sc, time.Minute, log) })
	err = g.Wait()
	log.Info("daemon stopped")
	return err
}

// reloadOnSignal rereads the config on every SIGHUP and hands the new plan
// to the daemon, telling systemd it reloads meanwhile. A bad config is
// logged and the running repos kept. It tells systemd the daemon stops
// once ctx is done.
func reloadOnSignal(ctx context.Context, hup <-chan os.Signal, d *daemon.Daemon, f runFlags, rules *tokenRules, log *slog.Logger) error {
	for {
		select {
		case <-ctx.Done():
			notify(log, "STOPPING=1")
			return nil
		case <-hup:
		}
		notify(log, "RELOADING=1")
		if err := reload(ctx, d, f, rules); err != nil && ctx.Err() == nil {
			log.Error("reload failed; keeping the running repos", "err", err)
		}
		if ctx.Err() == nil {
			notify(log, "READY=1")
		}
	}
}

// reload rereads the config and applies it to the running daemon.
func reload(ctx context.Context, d *daemon.Daemon, f runFlags, rules *tokenRules) error {
	cfg, err := loadConfig(f.config)
	if err != nil {
		return err
	}
	plan, err := planFor(f, cfg)
	if err != nil {
		return err
	}
	rules.set(newTokenRule(f.client, cfg.Client))
	return d.Reload(ctx, plan)
}

// notify sends state to systemd, logging a failure: the daemon works
// without it.
func notify(log *slog.Logger, state string) {
	if err := sdNotify(state); err != nil {
		log.Warn("cannot notify systemd", "state", state, "err", err)
	}
}

// planFor lists the repos to run, with the watcher timing and a digest of
// each repo's token, so a reload restarts what changed.
func planFor(f runFlags, cfg Config) (daemon.Plan, error) {
	plan, err := reposFor(f, cfg)
	if err != nil {
		return plan, err
	}
	plan.Watch = &watch.Options{Debounce: cfg.Daemon.Debounce, MaxWait: cfg.Daemon.MaxWait, Rescan: cfg.Daemon.Rescan}
	rule := newTokenRule(f.client, cfg.Client)
	for i := range plan.Specs {
		file := plan.Specs[i].TokenFile
		plan.Specs[i].TokenID = tokenID(plan.Specs[i].Server, file, rule.explicit(file))
	}
	return plan, nil
}

// reposFor lists the repos to run: the one named by --dir and --repo, or the
// config's [daemon] repos and discovered Claude Code projects.
func reposFor(f runFlags, cfg Config) (daemon.Plan, error) {
	client := f.client.resolve(cfg.Client)
	def := daemon.Defaults{Server: client.Server, TokenFile: client.TokenFile, ClaudeHome: claudeHome()}
	if f.dir != "" {
		dir, err := filepath.Abs(f.dir)
		if err != nil {
			return daemon.Plan{}, fmt.Errorf("team directory: %w", err)
		}
		if def.Server == "" {
			return daemon.Plan{}, errNoServer
		}
		spec := daemon.Spec{Repo: f.repo, Dir: dir, Server: def.Server, TokenFile: def.TokenFile, Source: "flags"}
		return daemon.Plan{Specs: []daemon.Spec{spec}}, nil
	}
	plan := daemon.BuildPlan(cfg.Daemon, def)
	if len(plan.Specs) > 0 || len(plan.Skipped) > 0 {
		return plan, nil
	}
	return checkoutPlan(def)
}

// checkoutPlan runs the git checkout in the current directory, found the
// way "teammemd sync" finds it, when neither flags nor config name a repo.
func checkoutPlan(def daemon.Defaults) (daemon.Plan, error) {
	found, err := memsync.Discover(".")
	if err != nil {
		return daemon.Plan{}, usageError{fmt.Errorf("nothing to sync: pass --dir, --repo and --server, "+
			"list repos in the [daemon] section of the config, or start it inside a git checkout: %w", err)}
	}
	if def.Server == "" {
		return daemon.Plan{}, errNoServer
	}
	spec := daemon.Spec{Repo: found.Slug, Dir: found.Dir, Server: def.Server, TokenFile: def.TokenFile,
		Source: "git checkout " + found.Root + " (the current directory)"}
	return daemon.Plan{Specs: []daemon.Spec{spec}}, nil
}

// engineOpener builds each repo's client and engine; the secret scanner is
// shared.
func engineOpener(stateDir string, sc *scan.Scanner, rules *tokenRules, log *slog.Logger) daemon.Opener {
	return func(_ context.Context, s daemon.Spec) (daemon.Engine, daemon.Waiter, error) {
		ts, err := tokenSource(s.Server, s.TokenFile, rules.explicit(s.TokenFile))
		if err != nil {
			return nil, nil, err
		}
		client, err := memsync.NewClient(s.Server, ts, memsync.WithLogger(log), memsync.WithUserAgent("teammemd/"+version))
		if err != nil {
			return nil, nil, err
		}
		eng, err := memsync.New(
			memsync.Config{Dir: s.Dir, Repo: s.Repo, Server: s.Server, StateDir: stateDir},
			memsync.Options{Client: client, Scanner: sc, Logger: log},
		)
		if err != nil {
			return nil, nil, err
		}
		return eng, client, nil
	}
}

// newLogger returns a stderr logger in the given format.
func newLogger(w io.Writer, format string) (*slog.Logger, error) {
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(w, nil)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, nil)), nil
	}
	return nil, fmt.Errorf("--log-format must be text or json, got %q", format)
}

// claudeHome is $CLAUDE_CONFIG_DIR, else ~/.claude.
func claudeHome() string {
	if d := os.Getenv("CLAUDE_CONFIG_DIR"); d != "" {
		return d
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".claude")
}

// flushScanCache saves the scanner's new verdicts every interval and once
// more when ctx is done, so a restarted daemon does not rescan unchanged
// files. Saving a cache with nothing new writes nothing.
func flushScanCache(ctx context.Context, sc *scan.Scanner, interval time.Duration, log *slog.Logger) error {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			if err := sc.Flush(); err != nil {
				log.Warn("scan verdict cache not saved", "err", err)
			}
			return nil
		case <-tick.C:
			if err := sc.Flush(); err != nil {
				log.Warn("scan verdict cache not saved", "err", err)
			}
		}
	}
}
