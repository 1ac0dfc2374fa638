package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/store"
)

// The actions of the audit.
const (
	auditWrote    = "wrote"
	auditDeleted  = "deleted"
	auditRestored = "restored"
	auditPurged   = "purged"
)

// auditEvent is one line of the audit: who did what to which entry and
// when. It never holds content.
type auditEvent struct {
	Time    time.Time `json:"time"`
	Actor   string    `json:"actor"`
	Action  string    `json:"action"`
	Repo    string    `json:"repo"`
	Key     string    `json:"key"`
	Version int64     `json:"version,omitempty"`
	// Detail is the version a restore brought back, or a purge's versions
	// and reason.
	Detail string `json:"detail,omitempty"`
}

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

// auditStore is what the audit reads.
type auditStore interface {
	store.HistoryReader
	Purges(ctx context.Context, repo string) ([]store.PurgeRecord, error)
}

// audit returns the events of repo (every repo when empty) at or after
// from, oldest first. It reads no content, and the history only from from
// on, but for the keys changed since then, whose earlier revisions tell a
// restore from a write.
func audit(ctx context.Context, st auditStore, repo string, from time.Time) ([]auditEvent, error) {
	revs, err := store.ListHistory(ctx, st, store.HistoryQuery{Repo: repo, Since: from, NoContent: true})
	if errors.Is(err, store.ErrNotFound) {
		return nil, fmt.Errorf("repo %s has never been written", repo)
	}
	if err != nil {
		return nil, fmt.Errorf("read history: %w", err)
	}
	if !from.IsZero() {
		earlier, err := earlierRevisions(ctx, st, revs)
		if err != nil {
			return nil, err
		}
		revs = append(earlier, revs...)
	}
	purges, err := st.Purges(ctx, repo)
	if err != nil {
		return nil, fmt.Errorf("read purges: %w", err)
	}
	events := revisionEvents(revs)
	for _, p := range purges {
		events = append(events, purgeEvent(p))
	}
	events = slices.DeleteFunc(events, func(e auditEvent) bool { return e.Time.Before(from) })
	slices.SortStableFunc(events, func(a, b auditEvent) int {
		return cmp.Or(a.Time.Compare(b.Time), cmp.Compare(a.Repo, b.Repo), cmp.Compare(a.Version, b.Version), cmp.Compare(a.Key, b.Key))
	})
	return events, nil
}

// earlierRevisions reads, without content, the revisions of each key of
// revs that came before its oldest one there.
func earlierRevisions(ctx context.Context, st auditStore, revs []store.Revision) ([]store.Revision, error) {
	type entry struct{ repo, key string }
	oldest := map[entry]int64{}
	var order []entry
	for _, r := range revs {
		e := entry{r.Repo, r.Key}
		if v, seen := oldest[e]; !seen || r.Version < v {
			if !seen {
				order = append(order, e)
			}
			oldest[e] = r.Version
		}
	}
	var out []store.Revision
	for _, e := range order {
		q := store.HistoryQuery{Repo: e.repo, Key: e.key, Before: oldest[e], NoContent: true}
		err := st.History(ctx, q, func(r store.Revision) error {
			out = append(out, r)
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("read history of %s in %s: %w", e.key, e.repo, err)
		}
	}
	return out, nil
}

// revisionEvents turns revisions into events, telling a restore (a write
// of content the key held before, other than what it held just before)
// from other writes.
func revisionEvents(revs []store.Revision) []auditEvent {
	type entry struct{ repo, key string }
	byKey := map[entry][]store.Revision{}
	for _, r := range revs {
		e := entry{r.Repo, r.Key}
		byKey[e] = append(byKey[e], r)
	}
	var out []auditEvent
	for _, list := range byKey {
		slices.SortFunc(list, func(a, b store.Revision) int { return cmp.Compare(a.Version, b.Version) })
		seen := map[string]int64{}
		prev := ""
		for _, r := range list {
			ev := auditEvent{Time: r.Time, Actor: r.Subject, Action: auditWrote, Repo: r.Repo, Key: r.Key, Version: r.Version}
			switch v, ok := seen[r.Checksum]; {
			case r.Deleted:
				ev.Action = auditDeleted
			case ok && r.Checksum != prev:
				ev.Action, ev.Detail = auditRestored, "content of version "+strconv.FormatInt(v, 10)
			}
			if !r.Deleted {
				seen[r.Checksum] = r.Version
			}
			prev = r.Checksum
			out = append(out, ev)
		}
	}
	return out
}

// purgeEvent turns a purge record into an event.
func purgeEvent(p store.PurgeRecord) auditEvent {
	detail := "versions " + joinVersions(p.Versions)
	if p.DeletedVersion > 0 {
		detail += ", live entry deleted at " + strconv.FormatInt(p.DeletedVersion, 10)
	}
	if p.Reason != "" {
		detail += ": " + p.Reason
	}
	return auditEvent{Time: p.Time, Actor: p.Actor, Action: auditPurged, Repo: p.Repo, Key: p.Key, Detail: detail}
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
