package main

import (
	"context"
	"fmt"
	"io"

	"github.com/teammemd/teammemd/server/api"
	memsync "github.com/teammemd/teammemd/sync"
)

// runLint runs the guards for what Claude Code reads on the team
// directory and exits 1 on a finding, for CI.
func runLint(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("lint", stderr)
	var f syncFlags
	fs.StringVar(&f.dir, "dir", "", "team memory directory (default: discovered from the git checkout in the current directory)")
	fs.StringVar(&f.config, "config", "", "config file, for [client] share_user_notes (default $TEAMMEMD_CONFIG, then $XDG_CONFIG_HOME/teammemd/config.toml)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("lint takes no arguments, got %q", fs.Args())}
	}
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
