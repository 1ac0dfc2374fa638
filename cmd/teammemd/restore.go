package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/teammemd/teammemd/server/api"
	memsync "github.com/teammemd/teammemd/sync"
)

// newRestoreCmd brings back a note from its history as a new revision.
func newRestoreCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "restore KEY",
		Short: "Bring back a deleted or overwritten note as a new revision",
		Long: `Bring back a note from its history on the server: the content of
--version, or the last content before the newest revision, pushed as a new
revision that every teammate gets. Nothing in the history is lost.`,
		Example: `  teammemd restore notes/deploy.md
  teammemd restore notes/deploy.md --version 3`,
		Args: wantArgs(1, 1, "one KEY"),
	}
	c := repoCommand{}
	fs := c.flags(cmd.Flags())
	version := fs.Int64("version", 0, "the `version` to bring back, as teammemd history lists it (default: the last content before the newest revision)")
	cmd.RunE = body(func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
		key := args[0]
		if err := keyArg(key); err != nil {
			return err
		}
		eng, sc, err := c.engine(stderr)
		if err != nil {
			return err
		}
		rev, err := eng.RestorePoint(ctx, key, *version)
		if err != nil {
			return explainSyncError(err)
		}
		rep, err := eng.Restore(ctx, key, *rev.Content)
		if ferr := sc.Flush(); ferr != nil {
			fmt.Fprintln(stderr, "teammemd: scan verdict cache not saved:", ferr)
		}
		printReport(stdout, rep, err == nil)
		if err != nil {
			return explainSyncError(err)
		}
		return printRestored(stdout, key, rev, rep)
	})
	return cmd
}

// printRestored says what became of a restore the server took: a new
// revision, a proposal waiting for review, or nothing to do. It is printed
// only once the server answered, so it never claims a write it refused.
func printRestored(w io.Writer, key string, rev api.Revision, rep memsync.Report) error {
	what := fmt.Sprintf("%s to version %d (%d bytes, written by %s on %s)", api.Printable(key), rev.Version, len(*rev.Content),
		api.Printable(rev.Subject), rev.Time.UTC().Format(time.RFC3339))
	var err error
	switch {
	case len(rep.Proposed) > 0:
		_, err = fmt.Fprintf(w, "proposed  %s for review: teammates get it once a reviewer approves it\n", what)
	case len(rep.Pushed) == 0:
		_, err = fmt.Fprintf(w, "%s already holds the content of version %d: no new revision\n", api.Printable(key), rev.Version)
	default:
		_, err = fmt.Fprintf(w, "restored  %s as a new revision: every teammate gets it\n", what)
	}
	return err
}
