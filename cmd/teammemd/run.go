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
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/sync/errgroup"

	"github.com/teammemd/teammemd/internal/memrelease"
	"github.com/teammemd/teammemd/scan"
	memsync "github.com/teammemd/teammemd/sync"
	"github.com/teammemd/teammemd/sync/claude"
	"github.com/teammemd/teammemd/sync/credential"
	"github.com/teammemd/teammemd/sync/daemon"
	"github.com/teammemd/teammemd/sync/personal"
	"github.com/teammemd/teammemd/watch"
)

// runFlags are the flags of "teammemd run".
type runFlags struct {
	config, dir, repo, socket, logFormat string
	client                               clientFlags
}

// newRunCmd is "teammemd run", the sync daemon.
func newRunCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run the sync daemon for one repo or every configured repo",
		Long: `Run the sync daemon until interrupted: it watches the team directory of
every repo in the config's [[daemon.repo]] (or, with none, of the git
checkouts it discovers; or the one --dir and --repo name), pulls what
teammates push and pushes local edits after the secret scan. It answers
teammemd status on its control socket and reloads its config on SIGHUP.
teammemd service install runs it as your user service.`,
		Example: `  teammemd run
  teammemd run --config ~/.config/teammemd/config.toml --log-format json
  teammemd run --dir ~/src/app/team --repo acme/app`,
		Args: noArgs,
	}
	fs := cmd.Flags()
	var f runFlags
	fs.StringVar(&f.config, "config", "", "config file (default $TEAMMEMD_CONFIG, then ~/.config/teammemd/config.toml)")
	fs.StringVar(&f.dir, "dir", "", "team directory to sync (with --repo: one repo, no [daemon] repos)")
	fs.StringVar(&f.repo, "repo", "", "repo slug of --dir")
	f.client.register(fs)
	fs.StringVar(&f.socket, "socket", "", "control socket (default "+daemon.SocketPath(runtimeDir())+")")
	fs.StringVar(&f.logFormat, "log-format", "text", "log format: text or json")
	cmd.RunE = body(func(ctx context.Context, _ []string, _, stderr io.Writer) error {
		return runDaemonWith(ctx, f, stderr)
	})
	return cmd
}

// runDaemonWith runs the daemon the flags f describe, logging to stderr.
func runDaemonWith(ctx context.Context, f runFlags, stderr io.Writer) error {
	log, err := newLogger(stderr, f.logFormat)
	if err != nil {
		return usageError{err}
	}
	return reportIn(ctx, log, "run failed", startDaemon(ctx, f, log))
}

// startDaemon loads the config and runs the daemon it describes.
func startDaemon(ctx context.Context, f runFlags, log *slog.Logger) error {
	if (f.dir == "") != (f.repo == "") {
		return usageError{errors.New("--dir and --repo go together")}
	}
	cfg, err := loadConfig(f.config)
	if err != nil {
		return notConfigured(err)
	}
	return serveDaemon(ctx, f, cfg, log)
}

// exitNotConfigured is run's exit status when it has nothing to sync or a
// config it cannot use: EX_CONFIG of sysexits.h, listed in the user unit's
// RestartPreventExitStatus=, since restarting cannot help.
const exitNotConfigured = 78

func notConfigured(err error) error { return exitError{code: exitNotConfigured, err: err} }

// serveDaemon builds the daemon, runs it and reloads it on SIGHUP.
func serveDaemon(ctx context.Context, f runFlags, cfg Config, log *slog.Logger) error {
	plan, err := daemonPlan(ctx, f, cfg)
	if err != nil {
		return notConfigured(err)
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
	// rules, and start-up touched code and data of every package linked in;
	// hand both back before settling in.
	memrelease.Release()
	burst := &burstRelease{release: memrelease.Release}
	d, err := daemon.New(daemon.Options{
		Logger:        log,
		Open:          engineOpener(state, cfg.Client.ShareUserNotes, sc, rules, laneKeyStore(), log),
		Watch:         watchOptions(cfg.Daemon),
		Control:       ln,
		Version:       version,
		OnReady:       func() { notify(log, "READY=1") },
		ReleaseMemory: burst.afterSync,
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
	g.Go(func() error { return flushScanCache(gctx, sc, time.Minute, burst.afterFlush, log) })
	if cfg.Daemon.DiscoverClaudeProjects && f.dir == "" {
		watchClaudeProjects(gctx, g, log, rediscover(gctx, d, f, rules, log))
		g.Go(func() error {
			return retryDiscovery(gctx, d.DiscoveryToRetry, daemon.DiscoveryRetry, rediscover(gctx, d, f, rules, log))
		})
	}
	if cfg.Personal.On() {
		g.Go(func() error {
			return watchPersonalKeys(gctx, laneKeyDir(), keyDirCheck, rediscover(gctx, d, f, rules, log))
		})
	}
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
		err := reload(ctx, d, f, rules, log, false)
		if ctx.Err() == nil {
			d.NoteReload(err)
		}
		if err != nil && ctx.Err() == nil {
			log.Error("reload failed; keeping the running repos", "err", err)
		}
		if ctx.Err() == nil {
			notify(log, "READY=1")
		}
	}
}

// reload rereads the config and applies its plan to the running daemon.
// rediscovered marks a plan made because Claude Code's projects changed:
// the daemon then leaves the repos it keeps alone.
func reload(ctx context.Context, d *daemon.Daemon, f runFlags, rules *tokenRules, log *slog.Logger, rediscovered bool) error {
	cfg, err := loadConfig(f.config)
	if err != nil {
		return err
	}
	plan, err := daemonPlan(ctx, f, cfg)
	if err != nil {
		return err
	}
	rules.set(newTokenRule(f.client, cfg.Client))
	if rediscovered {
		plan.Rediscovered = true
		log.Info("claude projects changed; discovering repos", "repos", len(plan.Specs))
	}
	return d.Reload(ctx, plan)
}

// notify sends state to systemd, logging a failure: the daemon works
// without it.
func notify(log *slog.Logger, state string) {
	if err := sdNotify(state); err != nil {
		log.Warn("cannot notify systemd", "state", state, "err", err)
	}
}

// daemonPlan is the plan the daemon runs: planFor, where discovery asks
// the server about a project whose team directory does not exist yet and
// creates it when the server holds the repo.
func daemonPlan(ctx context.Context, f runFlags, cfg Config) (daemon.Plan, error) {
	rule := newTokenRule(f.client, cfg.Client)
	plan, err := planWith(f, cfg, func(s daemon.Spec) (bool, error) { return serverHasRepo(ctx, s, rule.For(s.Server, s.TokenFile)) })
	if err != nil {
		return plan, err
	}
	return daemon.WithPersonal(plan, personalLanes(f, cfg)), nil
}

// planFor lists the repos to run without asking a server: a discovered
// project with no team directory is listed as skipped.
func planFor(f runFlags, cfg Config) (daemon.Plan, error) { return planWith(f, cfg, nil) }

// planWith lists the repos to run, with the watcher timing and a digest of
// each repo's token, so a reload restarts what changed; hasRepo, when set,
// is how discovery asks a server whether it holds a repo.
func planWith(f runFlags, cfg Config, hasRepo func(daemon.Spec) (bool, error)) (daemon.Plan, error) {
	plan, err := reposFor(f, cfg, hasRepo)
	if err != nil {
		return plan, err
	}
	plan = skipInsecure(plan, cfg.Client)
	timing := watchOptions(cfg.Daemon)
	plan.Watch = &timing
	rule := newTokenRule(f.client, cfg.Client)
	for i, s := range plan.Specs {
		c := rule.For(s.Server, s.TokenFile)
		plan.Specs[i].TokenID, plan.Specs[i].CredentialFile = c.ID(), c.File
		if c.Kind == credential.Env {
			plan.Specs[i].TokenEnv = credential.EnvToken
		}
	}
	return plan, nil
}

// watchOptions is the watcher timing of the [daemon] section.
func watchOptions(c daemon.Config) watch.Options {
	return watch.Options{Debounce: c.Debounce, MaxWait: c.MaxWait, Rescan: c.Rescan}
}

// reposFor lists the repos to run: the one named by --dir and --repo, or the
// config's [daemon] repos and discovered Claude Code projects.
func reposFor(f runFlags, cfg Config, hasRepo func(daemon.Spec) (bool, error)) (daemon.Plan, error) {
	client := f.client.resolve(cfg.Client)
	def := daemon.Defaults{Server: client.Server, TokenFile: client.TokenFile, HasRepo: hasRepo, CheckServer: cfg.Client.CheckServer}
	if f.dir != "" {
		dir, err := filepath.Abs(f.dir)
		if err != nil {
			return daemon.Plan{}, fmt.Errorf("team directory: %w", err)
		}
		if err := checkOnlyServer(def.Server, cfg.Client); err != nil {
			return daemon.Plan{}, err
		}
		spec := daemon.Spec{Repo: f.repo, Dir: dir, Server: def.Server, TokenFile: def.TokenFile, Source: "flags"}
		return daemon.Plan{Specs: []daemon.Spec{spec}}, nil
	}
	plan := daemon.BuildPlan(cfg.Daemon, def)
	if len(plan.Specs) > 0 || len(plan.Skipped) > 0 || cfg.Daemon.DiscoverClaudeProjects {
		return plan, nil
	}
	return checkoutPlan(def, cfg.Client)
}

// checkOnlyServer checks the server of a daemon that runs one repo, named
// by flags or by the checkout it starts in: a server it cannot use is a
// config error, where a repo of the config's would be skipped beside the
// others, since the daemon would run with nothing to sync.
func checkOnlyServer(server string, c memsync.ClientConfig) error {
	if server == "" {
		return errNoServer
	}
	return c.CheckServer(server)
}

// noCheckoutError is checkoutPlan's error: neither flags nor config name a
// repo, and the current directory is in no git checkout. Its message says
// what run takes; doctor, which has no --dir or --repo, says its own.
type noCheckoutError struct{ err error }

func (e noCheckoutError) Error() string {
	return "nothing to sync: pass --dir, --repo and --server, list repos in the [daemon] section of the config, " +
		"or start it inside a git checkout: " + e.err.Error()
}

func (e noCheckoutError) Unwrap() error { return e.err }

// checkoutPlan runs the git checkout in the current directory, found the
// way "teammemd sync" finds it, when neither flags nor config name a repo.
func checkoutPlan(def daemon.Defaults, c memsync.ClientConfig) (daemon.Plan, error) {
	found, err := claude.Discover(".")
	if err != nil {
		return daemon.Plan{}, usageError{noCheckoutError{err}}
	}
	if err := checkOnlyServer(def.Server, c); err != nil {
		return daemon.Plan{}, err
	}
	spec := daemon.Spec{Repo: found.Slug, Dir: found.Dir, Server: def.Server, TokenFile: def.TokenFile,
		Source: "git checkout " + found.Root + " (the current directory)"}
	return daemon.Plan{Specs: []daemon.Spec{spec}}, nil
}

// engineOpener builds each repo's client and engine; the secret scanner is
// shared. shareUserNotes is [client] share_user_notes at start-up.
func engineOpener(stateDir string, shareUserNotes bool, sc *scan.Scanner, rules *tokenRules, keys *personal.KeyStore, log *slog.Logger) daemon.Opener {
	return func(ctx context.Context, s daemon.Spec) (daemon.Engine, daemon.Waiter, error) {
		ts, err := rules.For(s.Server, s.TokenFile).Source()
		if err != nil {
			return nil, nil, err
		}
		opts := []memsync.ClientOption{memsync.WithLogger(log), memsync.WithUserAgent("teammemd/" + version)}
		if s.Lane != daemon.LanePersonal {
			// The client is this engine's alone: its change wait may be
			// carried past its pushes (PROTOCOL.md section 19).
			opts = append(opts, memsync.WithInstance())
		}
		client, err := memsync.NewClient(s.Server, ts, opts...)
		if err != nil {
			return nil, nil, err
		}
		if s.Lane == daemon.LanePersonal {
			return openLane(ctx, s, client, keys, sc, stateDir, log)
		}
		eng, err := memsync.New(
			memsync.Config{Dir: s.Dir, Repo: s.Repo, Server: s.Server, StateDir: stateDir, ShareUserNotes: shareUserNotes},
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

// watchClaudeProjects runs claude.WatchProjects in g, calling changed when
// a project may have been added. Without a Claude Code config directory
// there is nothing to watch; the plan lists discovery as skipped, why.
func watchClaudeProjects(ctx context.Context, g *errgroup.Group, log *slog.Logger, changed func()) {
	home, err := claude.Home()
	if err != nil {
		log.Warn("claude projects not watched", "err", err)
		return
	}
	g.Go(func() error { return claude.WatchProjects(ctx, home, log, changed) })
}

// flushScanCache saves the scanner's new verdicts every interval and once
// more when ctx is done, so a restarted daemon does not rescan unchanged
// files. Saving a cache with nothing new writes nothing. afterFlush runs
// after each timed flush.
func flushScanCache(ctx context.Context, sc *scan.Scanner, interval time.Duration, afterFlush func(), log *slog.Logger) error {
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
			afterFlush()
		}
	}
}

// rediscoverTimeout bounds the hash probe discovery makes for one project.
const rediscoverTimeout = time.Minute

// rediscover returns what WatchProjects calls when Claude Code's projects
// changed: a reload that leaves the repos kept alone. A failure is logged
// and the running repos kept.
func rediscover(ctx context.Context, d *daemon.Daemon, f runFlags, rules *tokenRules, log *slog.Logger) func() {
	return func() {
		if err := reload(ctx, d, f, rules, log, true); err != nil && ctx.Err() == nil {
			log.Error("discovery failed; keeping the running repos", "err", err)
		}
	}
}

// retryDiscovery runs again every interval while pending reports a
// discovered project left out because its server could not be asked about
// it: once a token file is written or the server is back, the project
// starts without a reload.
func retryDiscovery(ctx context.Context, pending func() bool, every time.Duration, again func()) error {
	return onTick(ctx, every, func() {
		if pending() {
			again()
		}
	})
}

// onTick calls fn every interval until ctx is done.
func onTick(ctx context.Context, every time.Duration, fn func()) error {
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
		fn()
	}
}

// serverHasRepo asks s's server whether it holds s.Repo, with one retry,
// authenticated with cred.
func serverHasRepo(ctx context.Context, s daemon.Spec, cred credential.Choice) (bool, error) {
	ts, err := cred.Source()
	if err != nil {
		return false, err
	}
	c, err := memsync.NewClient(s.Server, ts, memsync.WithUserAgent("teammemd/"+version), memsync.WithRetry(1, time.Second, 2*time.Second))
	if err != nil {
		return false, err
	}
	ctx, cancel := context.WithTimeout(ctx, rediscoverTimeout)
	defer cancel()
	return daemon.HasRepo(ctx, c, s.Repo)
}
