package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/teammemd/teammemd/server/api"
)

// runRestore brings back a note from its history as a new revision.
func runRestore(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c := repoCommand{name: "restore"}
	fs := c.flags(stderr)
	version := fs.Int64("version", 0, "the `version` to bring back, as teammemd history lists it (default: the last content before the newest revision)")
	pos, err := parseLeading(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageError{errors.New("restore takes one KEY")}
	}
	key := pos[0]
	eng, sc, err := c.engine(stderr)
	if err != nil {
		return err
	}
	rev, err := eng.RestorePoint(ctx, key, *version)
	if err != nil {
		return explainSyncError(err)
	}
	fmt.Fprintf(stdout, "restoring %s to version %d (%d bytes, written by %s on %s): pushed as a new revision, every teammate gets it\n",
		api.Printable(key), rev.Version, len(*rev.Content), api.Printable(rev.Subject), rev.Time.UTC().Format(time.RFC3339))
	rep, err := eng.Restore(ctx, key, *rev.Content)
	if ferr := sc.Flush(); ferr != nil {
		fmt.Fprintln(stderr, "teammemd: scan verdict cache not saved:", ferr)
	}
	printReport(stdout, rep, err == nil)
	if err != nil {
		return explainSyncError(err)
	}
	if len(rep.Proposed) > 0 {
		_, err = fmt.Fprintf(stdout, "proposed  %s at version %d for review: teammates get it once a reviewer approves it\n", api.Printable(key), rev.Version)
		return err
	}
	if len(rep.Pushed) == 0 {
		_, err = fmt.Fprintf(stdout, "%s already holds the content of version %d: no new revision\n", api.Printable(key), rev.Version)
		return err
	}
	_, err = fmt.Fprintf(stdout, "restored  %s to version %d as a new revision\n", api.Printable(key), rev.Version)
	return err
}

// parseLeading parses args whose positional arguments may come before
// the flags as well as after them: "restore KEY --version 3".
func parseLeading(fs *flag.FlagSet, args []string) ([]string, error) {
	var lead []string
	for len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		lead, args = append(lead, args[0]), args[1:]
	}
	if err := parseFlags(fs, args); err != nil {
		return nil, err
	}
	return append(lead, fs.Args()...), nil
}
