package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/teammemd/teammemd/server/api"
	memsync "github.com/teammemd/teammemd/sync"
)

// newLintCmd is "teammemd lint".
func newLintCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "lint",
		Short: "Check the team directory's notes as Claude Code will read them (exit 1 on a finding)",
		Long: `Check the notes of the team directory as Claude Code will read them: what
it would cut, misread or not load. Exits 1 on a finding, for CI.

A note of type user is one person's and is never pushed to the team; --fix
moves each such note from the team directory (memory/team/X.md) to the
private memory above it (memory/X.md), which the personal lane syncs to
your own machines only. The move never replaces a file: when the private
memory already holds another file of that name, or the team's server holds
the note (a teammate shared it, and moving it would delete it for the team),
the note stays where it is and lint says so.`,
		Example: `  teammemd lint
  teammemd lint --fix
  teammemd lint --dir team --json`,
		Args: noArgs,
	}
	fs := cmd.Flags()
	var f syncFlags
	fs.StringVar(&f.dir, "dir", "", "team memory directory (default: discovered from the git checkout in the current directory)")
	fs.StringVar(&f.config, "config", "", "config file, for [client] share_user_notes and state_dir (default $TEAMMEMD_CONFIG, then $XDG_CONFIG_HOME/teammemd/config.toml)")
	f.client.registerStateDir(fs) // where --fix reads which notes the server holds
	asJSON := jsonFlag(fs, "the findings")
	fix := fs.Bool("fix", false, "move each note of type user from the team directory to your private memory (memory/team/X.md to memory/X.md)")
	cmd.RunE = body(func(ctx context.Context, _ []string, stdout, _ io.Writer) error {
		return runLint(ctx, f, *asJSON, *fix, stdout)
	})
	return cmd
}

// runLint runs the guards for what Claude Code reads on the team
// directory and exits 1 on a finding, for CI.
func runLint(ctx context.Context, f syncFlags, asJSON, fix bool, stdout io.Writer) error {
	cfg, err := loadConfig(f.config)
	if err != nil {
		return err
	}
	dir, err := lintDir(f, cfg)
	if err != nil {
		return err
	}
	found, err := memsync.Lint(dir, cfg.Client.ShareUserNotes)
	if err != nil {
		return err
	}
	var moved []lintMove
	if fix {
		found, moved = fixPersonal(ctx, f, cfg, dir, found)
	}
	if asJSON {
		return writeLintJSON(stdout, dir, found, moved)
	}
	printMoves(stdout, moved)
	for _, w := range found {
		fmt.Fprintf(stdout, "%s: %s\n", api.Printable(w.Key), w.Message)
		if w.Message == memsync.HeldPersonal {
			fmt.Fprintf(stdout, "  %s\n", personalHint(dir, w.Key))
		}
	}
	if len(found) > 0 {
		return exitError{code: 1, err: fmt.Errorf("%d finding(s) in %s", len(found), api.Printable(dir))}
	}
	_, err = fmt.Fprintf(stdout, "%s: no findings\n", api.Printable(dir))
	return err
}

// lintDir is the team directory lint checks: --dir, or the one repo the
// checkout in the current directory or the config names, as "conflicts
// resolve" finds it. lint needs no slug and has no --repo.
func lintDir(f syncFlags, cfg Config) (string, error) {
	if f.dir != "" {
		f.repo = "-" // only the directory is used
	}
	t, err := findTarget(f, cfg, "pass --dir")
	return t.dir, err
}
