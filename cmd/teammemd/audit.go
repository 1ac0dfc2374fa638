package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/store"
)

// auditEvent is one line of the audit.
type auditEvent = store.AuditEvent

// newAdminAuditCmd lists who wrote, deleted, restored or purged what, and
// when, from the history and the purge records.
func newAdminAuditCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "audit",
		Short: "List who wrote, deleted, restored or purged what, and when (never the content)",
		Long: `List who wrote, deleted, restored or purged which entry, and when, oldest
first, from the history and the purge records. It never shows content.
With --json each event is one JSON object per line.`,
		Example: `  teammemd admin audit --repo acme/app --since 24h
  teammemd admin audit --since 2026-11-22 --json`,
		Args: noArgs,
	}
	fs := cmd.Flags()
	tf := addTokenFlags(fs)
	repo := fs.String("repo", "", "only this repo `slug` (default every repo)")
	since := fs.String("since", "", "only from this `time` on: RFC 3339 (2026-11-22T10:00:00Z), a date (2026-11-22, UTC) or a duration back from now (24h)")
	asJSON := fs.Bool("json", false, "print the events as JSON lines")
	cmd.RunE = body(func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
		from, err := parseSince(*since, time.Now())
		if err != nil {
			return usageError{err}
		}
		if *repo != "" {
			if err := api.ValidateSlug(*repo); err != nil {
				return usageError{fmt.Errorf("--repo: %w", err)}
			}
		}
		st, err := tf.openTokens(ctx)
		if err != nil {
			return err
		}
		defer st.Close()
		events, err := audit(ctx, st, *repo, from)
		if err != nil {
			return err
		}
		if *asJSON {
			return printAuditJSON(stdout, events)
		}
		return printAudit(stdout, events)
	})
	return cmd
}

// parseSince reads --since; "" is the beginning of time.
func parseSince(s string, now time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	return time.Time{}, fmt.Errorf("--since %q: want an RFC 3339 time, a date (2026-11-22) or a duration (24h)", s)
}

// audit returns the events of repo (every repo when empty) at or after
// from, oldest first.
func audit(ctx context.Context, st store.AuditReader, repo string, from time.Time) ([]auditEvent, error) {
	events, err := store.Audit(ctx, st, repo, from)
	if errors.Is(err, store.ErrNotFound) {
		return nil, fmt.Errorf("repo %s has never been written", repo)
	}
	return events, err
}

// printAudit writes one line per event, oldest first.
func printAudit(w io.Writer, events []auditEvent) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TIME\tACTOR\tACTION\tREPO\tKEY\tVERSION\tDETAIL")
	p := api.Printable
	for _, e := range events {
		version := "-"
		if e.Version > 0 {
			version = strconv.FormatInt(e.Version, 10)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", e.Time.UTC().Format(time.RFC3339), p(e.Actor), e.Action,
			p(e.Repo), p(e.Key), version, p(cmp.Or(e.Detail, "-")))
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("print audit: %w", err)
	}
	return nil
}

// printAuditJSON writes one JSON object a line.
func printAuditJSON(w io.Writer, events []auditEvent) error {
	enc := json.NewEncoder(w)
	for _, e := range events {
		if err := enc.Encode(e); err != nil {
			return fmt.Errorf("print audit: %w", err)
		}
	}
	return nil
}
