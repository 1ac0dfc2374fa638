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
it would cut, misread or not load. Exits 1 on a finding, for CI.`,
		Example: `  teammemd lint
  teammemd lint --dir team --json`,
		Args: noArgs,
	}
	fs := cmd.Flags()
	var f syncFlags
	fs.StringVar(&f.dir, "dir", "", "team memory directory (default: discovered from the git checkout in the current directory)")
	fs.StringVar(&f.config, "config", "", "config file, for [client] share_user_notes (default $TEAMMEMD_CONFIG, then $XDG_CONFIG_HOME/teammemd/config.toml)")
	asJSON := jsonFlag(fs, "the findings")
	cmd.RunE = body(func(ctx context.Context, _ []string, stdout, _ io.Writer) error {
		return runLint(ctx, f, *asJSON, stdout)
	})
	return cmd
}

// runLint runs the guards for what Claude Code reads on the team
// directory and exits 1 on a finding, for CI.
func runLint(_ context.Context, f syncFlags, asJSON bool, stdout io.Writer) error {
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
	if asJSON {
		return writeLintJSON(stdout, dir, found)
	}
	for _, w := range found {
		fmt.Fprintf(stdout, "%s: %s\n", api.Printable(w.Key), w.Message)
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
