package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/teammemd/teammemd/scan"
	"github.com/teammemd/teammemd/server/api"
	memsync "github.com/teammemd/teammemd/sync"
	"github.com/teammemd/teammemd/sync/claude"
)

// syncFlags are the flags of "teammemd sync".
type syncFlags struct {
	dir, repo, config string
	allowMassDelete   bool
	restoreDeleted    bool
	client            clientFlags
}

// newSyncCmd pulls then pushes one repo once and prints what happened.
func newSyncCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sync",
		Short: "Pull then push one repo's team memory once",
		Long: `Pull then push one repo's team memory once and print what happened: the
repo of the git checkout in the current directory, or --repo and --dir. The
daemon (teammemd run) does the same on every change; sync is for a machine
without it, a script or CI.`,
		Example: `  teammemd sync
  teammemd sync --json
  teammemd sync --dir ~/src/app/team --repo acme/app --server https://teammemd.example.com`,
		Args: noArgs,
	}
	fs := cmd.Flags()
	var f syncFlags
	fs.StringVar(&f.dir, "dir", "", "team memory directory (default: discovered from the git checkout in the current directory)")
	fs.StringVar(&f.repo, "repo", "", "repo slug, e.g. acme/app (default: from remote.origin.url)")
	f.client.register(fs)
	fs.StringVar(&f.config, "config", "", "config file (default $TEAMMEMD_CONFIG, then $XDG_CONFIG_HOME/teammemd/config.toml)")
	fs.BoolVar(&f.allowMassDelete, "allow-mass-delete", false, "propagate the deletion of more than half the synced files")
	fs.BoolVar(&f.restoreDeleted, "restore-deleted", false, "put back, as the server holds them now, the notes deleted here whose deletion the server has not taken; push nothing")
	asJSON := jsonFlag(fs, "the report")
	cmd.RunE = body(func(ctx context.Context, _ []string, stdout, stderr io.Writer) error {
		return runSync(ctx, f, *asJSON, stdout, stderr)
	})
	return cmd
}

// runSync pulls then pushes the repo f names once and prints what
// happened.
func runSync(ctx context.Context, f syncFlags, asJSON bool, stdout, stderr io.Writer) error {
	cfg, err := loadConfig(f.config)
	if err != nil {
		return err
	}
	dir, repo, err := syncTarget(f)
	if err != nil {
		return err
	}
	eng, sc, err := buildSyncEngine(f, cfg, dir, repo, stderr)
	if err != nil {
		return err
	}
	if f.restoreDeleted && f.allowMassDelete {
		return usageError{errors.New("--restore-deleted puts deleted notes back and --allow-mass-delete deletes them on the server: pass one")}
	}
	if !asJSON {
		fmt.Fprintf(stdout, "%s  %s\n", repo, api.Printable(dir))
	}
	run := eng.Sync
	if f.restoreDeleted {
		run = eng.RestoreDeleted
	}
	rep, err := run(ctx)
	if ferr := sc.Flush(); ferr != nil {
		fmt.Fprintln(stderr, "teammemd: scan verdict cache not saved:", ferr)
	}
	if asJSON {
		if jerr := writeJSON(stdout, syncReport(repo, dir, rep, err)); jerr != nil {
			return jerr
		}
	}
	return syncOutcome(stdout, rep, err, asJSON)
}

// syncOutcome prints the report of a sync that ended with err, unless it
// went out as JSON, and returns what the sync failed with.
func syncOutcome(stdout io.Writer, rep memsync.Report, err error, asJSON bool) error {
	if !asJSON {
		printReport(stdout, rep, err == nil && rep.OverCap == nil)
	}
	if err != nil {
		return explainSyncError(err)
	}
	if rep.OverCap != nil {
		return rep.OverCap
	}
	return nil
}

// buildSyncEngine resolves the server, token and state directory (flags >
// environment > config) and builds the engine for repo in dir.
func buildSyncEngine(f syncFlags, cfg Config, dir, repo string, stderr io.Writer) (*memsync.Engine, *scan.Scanner, error) {
	client := f.client.resolve(cfg.Client)
	if client.Server == "" {
		return nil, nil, errNoServer
	}
	parts, err := engineParts(f, cfg, client.Server, client.TokenFile, client.StateDir, stderr)
	if err != nil {
		return nil, nil, err
	}
	eng, err := memsync.New(
		memsync.Config{Dir: dir, Repo: repo, Server: client.Server, StateDir: client.StateDir, AllowMassDelete: f.allowMassDelete,
			ShareUserNotes: cfg.Client.ShareUserNotes},
		memsync.Options{Client: parts.client, Scanner: parts.scanner, Logger: parts.log, ReportShown: true},
	)
	return eng, parts.scanner, err
}

// commandEngine is what a command's engine is built from: the server's
// client, the scanner and a logger of warnings for the user to read.
type commandEngine struct {
	client  *memsync.Client
	scanner *scan.Scanner
	log     *slog.Logger
}

// engineParts checks server against the config, reads its token (flags >
// environment > config) and builds the client and the scanner an engine
// of a command needs, logging warnings to stderr.
func engineParts(f syncFlags, cfg Config, server, tokenFile, stateDir string, stderr io.Writer) (commandEngine, error) {
	if err := cfg.Client.CheckServer(server); err != nil {
		return commandEngine{}, err
	}
	ts, err := newTokenRule(f.client, cfg.Client).For(server, tokenFile).Source()
	if err != nil {
		return commandEngine{}, err
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	hc, err := memsync.NewClient(server, ts, memsync.WithLogger(log), memsync.WithUserAgent("teammemd/"+version))
	if err != nil {
		return commandEngine{}, err
	}
	sc, err := clientScanner(cfg.Scan, stateDir, log)
	if err != nil {
		return commandEngine{}, err
	}
	return commandEngine{client: hc, scanner: sc, log: log}, nil
}

// syncTarget returns the team directory, absolute, and the slug: both from
// flags, or discovered from the git checkout in the current directory.
func syncTarget(f syncFlags) (dir, repo string, err error) {
	dir, repo = f.dir, f.repo
	if dir == "" || repo == "" {
		found, err := claude.Discover(".")
		if err != nil {
			return "", "", usageError{fmt.Errorf("%w (or pass --dir and --repo)", err)}
		}
		dir, repo = cmp.Or(dir, found.Dir), cmp.Or(repo, found.Slug)
	}
	if dir, err = filepath.Abs(dir); err != nil {
		return "", "", fmt.Errorf("team directory: %w", err)
	}
	return dir, repo, nil
}

// printReport lists what moved, what was held back and why; done says the
// run finished, so an empty report means "up to date". Names and the
// server's words are escaped for the terminal.
func printReport(w io.Writer, r memsync.Report, done bool) {
	p := api.Printable
	list := func(label string, keys []string) {
		for _, k := range keys {
			fmt.Fprintf(w, "%-9s %s\n", label, p(k))
		}
	}
	list("pulled", r.Pulled)
	list("pushed", r.Pushed)
	list("proposed", r.Proposed)
	list("deleted", r.Deleted)
	list("removed", r.SoftDeleted)
	for _, b := range r.Blocked {
		fmt.Fprintf(w, "blocked   %s: %s\n", p(b.Key), blockedWhy(b))
	}
	for _, h := range r.Held {
		fmt.Fprintf(w, "held      %s: %s\n", p(h.Key), p(h.Reason))
	}
	for _, k := range r.HeldDeletions {
		fmt.Fprintf(w, "held      %s: deleted here, not deleted on the server (see below)\n", p(k))
	}
	for _, c := range r.Conflicts {
		fmt.Fprintf(w, "conflict  %s: the %s version was kept at %s\n", p(c.Key), c.Source, p(c.Path))
	}
	for _, s := range r.Skipped {
		fmt.Fprintf(w, "skipped   %s: %s\n", p(s.Key), p(s.Reason))
	}
	for _, wn := range r.Warnings {
		fmt.Fprintf(w, "warning   %s: %s\n", p(wn.Key), p(wn.Message))
	}
	for _, n := range r.Review {
		fmt.Fprintf(w, "review    %s: %s\n", p(n.Key), reviewNoteLine(n))
	}
	if done && len(r.Pulled)+len(r.Pushed)+len(r.Proposed)+len(r.Deleted)+len(r.SoftDeleted) == 0 {
		fmt.Fprintln(w, "up to date")
	}
}

// blockedWhy says why a file or its deletion was held back.
func blockedWhy(b memsync.Blocked) string {
	rules := strings.Join(b.RuleIDs, ", ")
	switch {
	case b.Deletion:
		return "secret in the file name (" + rules + "); deletion not sent"
	case b.Line == 0:
		return "secret in the file name (" + rules + "); not pushed"
	}
	return fmt.Sprintf("secret found (%s, line %d); not pushed", rules, b.Line)
}

// explainSyncError adds what to do to the errors a user can fix.
func explainSyncError(err error) error {
	switch memsync.Classify(err) {
	case memsync.TokenRejected:
		return fmt.Errorf("%w: run teammemd login, or set "+envToken+", --token-file, "+envTokenFile+" or [client] token_file to a valid token", err)
	case memsync.NoAccess, memsync.ReadOnly:
		// The server's message says what to do for the credential's mode:
		// a token or a grant from its admin, or access on GitHub.
		return err
	}
	if errors.Is(err, memsync.ErrLocked) {
		return fmt.Errorf("%w; try again when it is done", err)
	}
	if os.IsPermission(err) {
		return fmt.Errorf("%w: check the permissions of the team and state directories", err)
	}
	return err
}

// reviewNoteLine says where a change held for review stands; the local
// file keeps it either way.
func reviewNoteLine(n memsync.ReviewNote) string {
	if n.State == memsync.ReviewRejected {
		return fmt.Sprintf("rejected by %s: %s (proposal %d; your file keeps your change: edit it to propose it again, or take the team's copy with teammemd show %s)",
			api.Printable(n.Reviewer), api.Printable(n.Reason), n.Proposal, api.Printable(n.Key))
	}
	return fmt.Sprintf("pending review (proposal %d): teammates get it once a reviewer approves it", n.Proposal)
}
