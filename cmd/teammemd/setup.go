package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/teammemd/teammemd/internal/shell"
	"github.com/teammemd/teammemd/service"
	"github.com/teammemd/teammemd/sync/claude"
	"github.com/teammemd/teammemd/sync/claude/route"
	"github.com/teammemd/teammemd/sync/fsio"
)

// setupFlags are the flags of "teammemd setup claude".
type setupFlags struct {
	service.Options
	route            string
	trafficOff, undo bool
	noService        bool
	claude           string
	recordPath       string
}

func (f *setupFlags) register(fs *pflag.FlagSet) {
	registerInstallFlags(fs, &f.Options)
	fs.StringVar(&f.route, "route", "", "how the client is shown the team notes, `hook|stores` (default: the best the client has, see the README)")
	fs.BoolVar(&f.trafficOff, "disable-client-traffic", false, "consent to CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 (the client's telemetry, "+
		"error reports, update checks and its own memory sync off), which the stores route needs")
	fs.StringVar(&f.claude, "claude", "", "the Claude Code `executable` to inspect (default: claude on PATH)")
	fs.BoolVar(&f.noService, "no-service", false, "do not install the service; print the teammemd run line to start instead")
	fs.BoolVar(&f.undo, "undo", false, "reverse what setup changed in Claude Code's settings (the daemon's service stays; teammemd service uninstall removes it)")
}

// newSetupCmd sets up an AI agent to load the team memory; each agent is
// a subcommand.
func newSetupCmd(d deps) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "setup",
		Short: "Make an AI agent load the team memory teammemd syncs, and start the daemon",
		Long: `Make an AI agent load the team memory teammemd syncs, and start the sync
daemon: one subcommand per agent.`,
		Example: `  teammemd setup claude --server https://teammemd.example.com --token-stdin
  teammemd setup claude --undo`,
	}
	cmd.AddCommand(newSetupClaudeCmd(d))
	return cmd
}

// newSetupClaudeCmd is "teammemd setup claude".
func newSetupClaudeCmd(d deps) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "claude",
		Short: "Make Claude Code load the team memory teammemd syncs, and start the daemon",
		Long: `Make Claude Code load the team memory teammemd syncs, and start the daemon:
choose the route the client supports (a SessionStart hook, or its memory
stores), write teammemd's config and Claude Code's settings, and install the
daemon as your user service. --undo puts Claude Code's settings back as they
were.`,
		Example: `  teammemd setup claude --server https://teammemd.example.com --token-stdin --checkout ~/src/app
  teammemd setup claude --route hook --no-service
  teammemd setup claude --undo --dry-run`,
		Args: noArgs,
	}
	var f setupFlags
	f.register(cmd.Flags())
	cmd.RunE = body(func(ctx context.Context, _ []string, stdout, stderr io.Writer) error {
		return serviceError(runSetupClaude(ctx, d, f, stdout, stderr))
	})
	return cmd
}

// runSetupClaude runs "teammemd setup claude" on the machine d gives.
func runSetupClaude(ctx context.Context, d deps, f setupFlags, stdout, stderr io.Writer) error {
	f.recordPath = filepath.Join(stateDir(), "claude-setup.json")
	if f.undo {
		if err := setupUndo(f, stdout); err != nil || f.DryRun {
			return err
		}
		sayDaemonLeft(ctx, d, stdout)
		return nil
	}
	env, err := serviceEnv(d)
	if err != nil {
		return err
	}
	return setupClaude(ctx, env, f, stdout, stderr)
}

// setupClaude chooses the route for the client found, writes teammemd's
// config and Claude Code's settings, and starts the daemon. Every file it
// changes is read and checked before the first is written, so that one
// it cannot change leaves them all as they were.
func setupClaude(ctx context.Context, env service.Env, f setupFlags, stdout, stderr io.Writer) error {
	client := route.Find(ctx, f.claude)
	fmt.Fprintln(stdout, describeClient(client))
	choice, err := route.Choose(client, route.Want{Route: route.Route(f.route), TrafficOff: f.trafficOff})
	if err != nil {
		return usageError{err}
	}
	printChoice(stdout, choice)
	if err := checkPersonalRoute(f, client, choice, stdout); err != nil {
		return err
	}
	in, err := service.Prepare(env, f.Options, stderr)
	if err != nil {
		return err
	}
	home, err := claude.Home()
	if err != nil {
		return err
	}
	change := route.ChangeFor(choice, shell.Quote(in.Spec.Binary)+" hook session-start")
	if !route.IsHookCommand(change.Hook) {
		return usageError{fmt.Errorf("the SessionStart hook would run %s, and Claude Code's settings are checked for teammemd's hook by the binary's name: "+
			"use a binary named teammemd (or teammemd-<platform>), with --binary or by renaming this one", in.Spec.Binary)}
	}
	sp, err := route.PlanSetup(route.SettingsPath(home), f.recordPath, change, time.Now())
	if err != nil {
		return err
	}
	mp, err := planMCP(f, in.Spec.Binary)
	if err != nil {
		return err
	}
	if err := in.WriteConfig(stdout); err != nil {
		return err
	}
	if err := applySettings(sp, f.DryRun, stdout); err != nil {
		return err
	}
	if err := registerMCP(mp, f.DryRun, stdout); err != nil {
		return err
	}
	if !f.DryRun {
		printProjects(agentChecker{client: client, home: home}, in.Spec.Config, stdout)
	}
	return startService(ctx, in, f, stdout)
}

// printProjects says, for each repo the config makes the daemon sync,
// whether Claude Code will now show its team notes to the model.
func printProjects(a agentChecker, config string, w io.Writer) {
	cfg, err := loadConfig(config)
	if err != nil {
		fmt.Fprintf(w, "cannot list the projects: %v\n", err)
		return
	}
	plan, err := planFor(runFlags{config: config}, cfg)
	if err != nil {
		fmt.Fprintf(w, "cannot list the projects: %v\n", err)
		return
	}
	for _, s := range plan.Specs {
		c := a.check(s.Dir)
		fmt.Fprintf(w, "%s: %s", s.Repo, c.detail)
		if c.fix != "" {
			fmt.Fprintf(w, "; fix: %s", c.fix)
		}
		fmt.Fprintln(w)
	}
}

// describeClient says what client was found.
func describeClient(c route.Client) string {
	switch {
	case c.Path == "":
		return "Claude Code: not found (" + c.Err.Error() + "); the settings are written for when it is installed"
	case c.Version == nil:
		return fmt.Sprintf("Claude Code: %s, version unknown (%v)", c.Path, c.Err)
	}
	return fmt.Sprintf("Claude Code: %s at %s, logged in with %s", c.Version, c.Path, c.Login)
}

// printChoice says which route was chosen, why, and what it costs.
func printChoice(w io.Writer, ch route.Choice) {
	fmt.Fprintf(w, "route: %s\n", ch.Route)
	for _, s := range ch.Why {
		fmt.Fprintf(w, "  why: %s\n", s)
	}
	for _, s := range ch.TradeOffs {
		fmt.Fprintf(w, "  trade-off: %s\n", s)
	}
}

// applySettings writes Claude Code's settings, or with dry says what it
// would change; it never prints the file, whose env may hold secrets.
func applySettings(p route.Plan, dry bool, w io.Writer) error {
	if p.Unchanged() {
		fmt.Fprintf(w, "unchanged %s\n", p.Settings)
		return nil
	}
	verb := "changed"
	if dry {
		verb = "would change"
	}
	fmt.Fprintf(w, "%s %s:\n", verb, p.Settings)
	for _, k := range slices.Sorted(maps.Keys(p.Record.Set)) {
		fmt.Fprintf(w, "    env.%s = %s\n", k, p.Record.Set[k])
	}
	fmt.Fprintf(w, "    hooks.SessionStart: %s\n", p.Record.Hook)
	if p.BackupPath != "" {
		fmt.Fprintf(w, "    backup of the file as it was: %s\n", p.BackupPath)
	}
	if dry {
		return nil
	}
	return route.Apply(p, fsio.WriteFile)
}

// planMCP reads and checks Claude Code's user config, in which setup
// registers "teammemd mcp" as the user-scope MCP server.
func planMCP(f setupFlags, binary string) (route.MCPPlan, error) {
	config, err := route.UserConfigPath()
	if err != nil {
		return route.MCPPlan{}, err
	}
	return route.PlanMCP(config, f.recordPath, binary)
}

// registerMCP registers "teammemd mcp" as Claude Code's user-scope MCP
// server, or with dry says it would.
func registerMCP(p route.MCPPlan, dry bool, w io.Writer) error {
	msg, err := p.Apply(dry, fsio.WriteFile)
	if err != nil {
		return err
	}
	fmt.Fprintln(w, msg)
	return nil
}

// startService installs and starts the service where a manager answers,
// else prints the command that starts the daemon.
func startService(ctx context.Context, in *service.Installation, f setupFlags, w io.Writer) error {
	if f.noService {
		if st, ok := runningDaemon(ctx); ok {
			fmt.Fprintf(w, "a daemon already runs (pid %d); reload it so that it reads the config: kill -HUP %d\n", st.PID, st.PID)
			return nil
		}
		fmt.Fprintf(w, "start the daemon with:\n    %s\n", in.RunLine())
		return nil
	}
	if err := in.ManagerAnswers(ctx); err != nil {
		fmt.Fprintf(w, "%v, so no service was installed (%s); start the daemon with:\n    %s\n", err, in.Plan.NoManager, in.RunLine())
		return nil
	}
	if err := in.Start(ctx, w); err != nil {
		return err
	}
	if f.DryRun {
		fmt.Fprintln(w, "dry run: nothing was written or run")
		return nil
	}
	fmt.Fprintf(w, "teammemd run is installed as a %s and started; teammemd doctor checks that Claude Code loads the team's notes\n", in.Plan.Name)
	return nil
}

// undoPreview says what undo would take out of the settings: the env keys
// and the hook setup added, naming only those it did add.
func undoPreview(r *route.Record) string {
	var parts []string
	if len(r.Set) > 0 {
		parts = append(parts, "env "+strings.Join(slices.Sorted(maps.Keys(r.Set)), ", "))
	}
	if r.Hook != "" {
		parts = append(parts, "the hook "+r.Hook)
	}
	if len(parts) == 0 {
		return "would take nothing out of " + r.Settings + ": setup added no env key or hook there"
	}
	return "would take out of " + r.Settings + ": " + strings.Join(parts, " and ")
}

// setupUndo reverses the recorded setup.
func setupUndo(f setupFlags, w io.Writer) error {
	if f.DryRun {
		r, err := route.LoadRecord(f.recordPath)
		if err != nil || r == nil {
			return cmp.Or(err, fmt.Errorf("nothing to undo: no setup is recorded in %s", f.recordPath))
		}
		fmt.Fprintln(w, undoPreview(r))
		msg, err := route.UnregisterMCP(f.recordPath, true, fsio.WriteFile)
		if msg != "" {
			fmt.Fprintln(w, msg)
		}
		return err
	}
	if msg, err := route.UnregisterMCP(f.recordPath, false, fsio.WriteFile); err != nil {
		return err
	} else if msg != "" {
		fmt.Fprintln(w, msg)
	}
	u, err := route.Undo(f.recordPath, fsio.WriteFile)
	if err != nil {
		return err
	}
	if u.Exact {
		fmt.Fprintf(w, "restored %s exactly as it was before setup\n", u.Settings)
	} else {
		fmt.Fprintf(w, "took teammemd's settings out of %s, which changed since setup; the rest stays (%s)\n", u.Settings, beforeSetup(u.Backup))
	}
	for _, k := range u.Kept {
		fmt.Fprintf(w, "kept env.%s: it was changed after setup\n", k)
	}
	return nil
}

// beforeSetup says where the settings file as it was before setup is
// kept: its backup, or none, when setup created the file.
func beforeSetup(backup string) string {
	if backup == "" {
		return "setup created the file; there was none before"
	}
	return "backup of the file before setup: " + backup
}

// sayDaemonLeft says, after an undo, what of the daemon is left: its
// service, when one is installed, else a daemon that answers on the
// control socket. With neither there is nothing to stop, and it says
// nothing.
func sayDaemonLeft(ctx context.Context, d deps, w io.Writer) {
	r, err := installedService(ctx, d)
	switch {
	case err == nil && r.Runs():
		fmt.Fprintf(w, "the daemon still runs as your %s; teammemd service uninstall stops and removes it\n", r.Name)
	case err == nil && r.Installed:
		fmt.Fprintf(w, "the daemon's %s is still installed, not running; teammemd service uninstall removes it\n", r.Name)
	default:
		if st, ok := runningDaemon(ctx); ok {
			fmt.Fprintf(w, "a daemon started by hand still runs (pid %d) and syncs until you stop it\n", st.PID)
		}
	}
}

// installedService is what the service manager says of the daemon's
// service on the machine d gives.
func installedService(ctx context.Context, d deps) (service.Report, error) {
	env, err := serviceEnv(d)
	if err != nil {
		return service.Report{}, err
	}
	return service.Status(ctx, env)
}
