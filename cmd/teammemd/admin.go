package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/user"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/teammemd/teammemd/scan"
	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/store"
)

// maxReasonBytes bounds the reason of a purge.
const maxReasonBytes = 1000

// newAdminCmd operates on the server's database directly, the SQLite file
// in --data or the PostgreSQL database in --store, as token does (the
// server may be running): list an entry's revisions, purge their content,
// list the purges, audit, give a restored database a new identity, and
// release a GitHub login's binding to its user.
func newAdminCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "admin",
		Short: "List an entry's revisions, purge their content from the server, list purges, audit who changed what, back the database up",
		Long: `Operate on the server's database directly, the SQLite file in --data or
the PostgreSQL database in --store, as token does: the server may be
running.`,
		Example: `  teammemd admin history --repo acme/app --key notes/deploy.md
  teammemd admin audit --since 24h --json`,
	}
	cmd.AddCommand(newAdminHistoryCmd(), newAdminPurgeCmd(), newAdminPurgesCmd(), newAdminAuditCmd(), newAdminNewStoreIDCmd(), newAdminBackupCmd(),
		newAdminPersonalCmd(), newAdminIdentityCmd())
	return cmd
}

// newAdminPurgeCmd is "teammemd admin purge".
func newAdminPurgeCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "purge --repo SLUG --key KEY (--version N[,N...] | --all)",
		Short: "Drop the content of revisions of one entry from the history for good",
		Long: `Drop the content of revisions of one entry from the server's history for
good, say a leaked secret: the revisions stay listed, without content, and
the purge is recorded in the audit log with its actor and reason. The live
revision is purged only with --include-live, which deletes the entry.`,
		Example: `  teammemd admin purge --repo acme/app --key notes/deploy.md --version 3,4 --reason 'leaked AWS key, rotated'
  teammemd admin purge --repo acme/app --key notes/deploy.md --all --include-live`,
		Args: noArgs,
	}
	fs := cmd.Flags()
	tf := addTokenFlags(fs)
	repo := fs.String("repo", "", "the repo `slug`, e.g. acme/app (required)")
	key := fs.String("key", "", "the entry's `key`, e.g. notes/deploy.md (required)")
	versions := fs.String("version", "", "comma-separated `versions` to purge, as the history lists them")
	all := fs.Bool("all", false, "purge every revision of the key (the live one only with --include-live)")
	live := fs.Bool("include-live", false, "also purge the live revision, which deletes the entry: daemons pull the deletion")
	actor := fs.String("actor", "", "who purges, for the audit log (default the OS user `name`)")
	reason := fs.String("reason", "", "why, for the audit log, e.g. 'leaked AWS key, rotated'")
	cmd.RunE = body(func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
		p, err := parsePurge(*repo, *key, *versions, *all, *live, *actor, *reason)
		if err != nil {
			return usageError{err}
		}
		if err := checkPurgeReason(ctx, p.Reason); err != nil {
			return err
		}
		st, err := tf.openTokens(ctx)
		if err != nil {
			return err
		}
		defer st.Close()
		res, err := st.Purge(ctx, p)
		if err != nil {
			return purgeError(p, err)
		}
		if err := printPurge(stdout, stderr, p, res); err != nil {
			return err
		}
		return st.Close()
	})
	return cmd
}

// checkPurgeReason refuses a reason in which the secret scan (the default
// rules, as the server scans) finds a secret: the audit log keeps the
// reason for good, and a purge is often of the very key it would name.
func checkPurgeReason(ctx context.Context, reason string) error {
	if reason == "" {
		return nil
	}
	sc, err := scan.New(scan.Config{}, scan.IgnorePathAllowlists())
	if err != nil {
		return fmt.Errorf("secret scanner: %w", err)
	}
	hits, err := sc.ScanEntries(ctx, map[string]string{"reason": reason})
	if err != nil {
		return fmt.Errorf("scan --reason: %w", err)
	}
	if rules := hits["reason"]; len(rules) > 0 {
		return usageError{fmt.Errorf("--reason looks like it holds a secret (%s): the audit log keeps it for good; say why without it. Nothing was purged", strings.Join(rules, ", "))}
	}
	return nil
}

// parsePurge checks the flags of admin purge and turns them into a purge.
func parsePurge(repo, key, versions string, all, live bool, actor, reason string) (store.Purge, error) {
	if err := repoAndKey(repo, key); err != nil {
		return store.Purge{}, err
	}
	if (versions == "") == !all {
		return store.Purge{}, errors.New("give either --version N[,N...] or --all")
	}
	vs, err := parseVersions(versions)
	if err != nil {
		return store.Purge{}, err
	}
	who, err := purgeActor(actor)
	if err != nil {
		return store.Purge{}, err
	}
	if err := validateText("--reason", reason, maxReasonBytes); err != nil {
		return store.Purge{}, err
	}
	return store.Purge{Repo: repo, Key: key, Versions: vs, IncludeLive: live, Actor: who, Reason: reason,
		Time: time.Now().UTC()}, nil
}

// notAKey says, after "has no revisions", why key never could have any
// when no note can have it (api.KeyProblem under the default limits), or
// is empty. The key is not refused up front: a repo's history may hold
// keys its server's limits were lowered below.
func notAKey(key string) string {
	if why := api.KeyProblem(key, api.Limits{}); why != "" {
		return fmt.Sprintf("; %s is not a key a note can have: %s", key, why)
	}
	return ""
}

// repoAndKey checks --repo and --key.
func repoAndKey(repo, key string) error {
	if err := api.ValidateSlug(repo); err != nil {
		return fmt.Errorf("--repo: %w", err)
	}
	if key == "" {
		return errors.New("--key is required, e.g. --key notes/deploy.md")
	}
	return nil
}

// parseVersions parses "3,5" into its versions; "" is none.
func parseVersions(s string) ([]int64, error) {
	if s == "" {
		return nil, nil
	}
	var vs []int64
	for part := range strings.SplitSeq(s, ",") {
		v, err := strconv.ParseInt(strings.TrimSpace(part), 10, 64)
		if err != nil || v < 1 {
			return nil, fmt.Errorf("--version %q: want whole numbers from 1, separated by commas", s)
		}
		vs = append(vs, v)
	}
	return vs, nil
}

// purgeActor returns who purges: --actor, else the OS user.
func purgeActor(actor string) (string, error) {
	if actor == "" {
		if u, err := user.Current(); err == nil {
			actor = u.Username
		}
	}
	if actor == "" {
		actor = os.Getenv("USER")
	}
	if actor == "" {
		return "", errors.New("cannot tell who is purging: pass --actor NAME")
	}
	return actor, validateText("--actor", actor, maxSubjectBytes)
}

// validateText requires s to be printable UTF-8 of at most max bytes.
func validateText(flag, s string, max int) error {
	if len(s) > max {
		return fmt.Errorf("%s is longer than %d bytes", flag, max)
	}
	if s != "" && printableSubject(s) != nil {
		return fmt.Errorf("%s must be printable UTF-8 text", flag)
	}
	return nil
}

// purgeError words a refused purge for the operator.
func purgeError(p store.Purge, err error) error {
	switch {
	case errors.Is(err, store.ErrNotFound):
		return fmt.Errorf("repo %s has never been written", p.Repo)
	case errors.Is(err, store.ErrLiveRevision):
		return fmt.Errorf("%w; nothing was purged. Purging it deletes the entry (daemons pull the deletion): "+
			"pass --include-live for that, or write the fixed note first and purge the old revision", err)
	case errors.Is(err, store.ErrRevisionNotFound):
		return fmt.Errorf("%w%s; nothing was purged ('teammemd admin history --repo %s --key %s' lists the versions)", err, notAKey(p.Key), p.Repo, p.Key)
	}
	return err
}

// printPurge reports what a purge did: never the content.
func printPurge(stdout, stderr io.Writer, p store.Purge, res store.PurgeResult) error {
	rec := res.Record
	if len(rec.Versions) == 0 {
		_, err := fmt.Fprintf(stdout, "nothing to purge: no revision named of %s in %s holds content (deletions, and revisions already pruned or purged, hold none)\n", p.Key, p.Repo)
		return err
	}
	noun := "revision"
	if len(rec.Versions) > 1 {
		noun = "revisions"
	}
	fmt.Fprintf(stdout, "purged the content of %s %s of %s in %s\n", noun, store.JoinVersions(rec.Versions), p.Key, p.Repo)
	if rec.DeletedVersion > 0 {
		fmt.Fprintf(stdout, "deleted the live entry: %s is now at version %d; daemons pull the deletion at their next change wait or sync\n", p.Repo, rec.DeletedVersion)
	}
	_, err := fmt.Fprintf(stdout, "recorded in the audit log: %s by %s\n", rec.Time.Format(time.RFC3339), rec.Actor)
	if res.Residue != "" {
		fmt.Fprintln(stderr, "warning:", res.Residue)
	}
	return err
}

// newAdminPurgesCmd is "teammemd admin purges".
func newAdminPurgesCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:     "purges",
		Short:   "List the audit log of purges: when, who, repo, key, versions, why",
		Example: "  teammemd admin purges --repo acme/app",
		Args:    noArgs,
	}
	fs := cmd.Flags()
	tf := addTokenFlags(fs)
	repo := fs.String("repo", "", "list only the purges of this repo `slug`")
	cmd.RunE = body(func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
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
		recs, err := st.Purges(ctx, *repo)
		if err != nil {
			return err
		}
		return printPurges(stdout, recs)
	})
	return cmd
}

// printPurges writes one line per purge record, oldest first.
func printPurges(w io.Writer, recs []store.PurgeRecord) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TIME\tACTOR\tREPO\tKEY\tVERSIONS\tDELETED\tREASON")
	for _, r := range recs {
		parts := make([]string, len(r.Versions))
		for i, v := range r.Versions {
			parts[i] = strconv.FormatInt(v, 10)
		}
		deleted, reason := "-", r.Reason
		if r.DeletedVersion > 0 {
			deleted = "at " + strconv.FormatInt(r.DeletedVersion, 10)
		}
		if reason == "" {
			reason = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Time.Format(time.RFC3339), api.Printable(r.Actor),
			api.Printable(r.Repo), api.Printable(r.Key), strings.Join(parts, ","), deleted, api.Printable(reason))
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("print purges: %w", err)
	}
	return nil
}

// newAdminHistoryCmd is "teammemd admin history".
func newAdminHistoryCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "history --repo SLUG --key KEY",
		Short: "List the revisions of one entry: version, time, author, checksum, content size",
		Long: `List the revisions of one entry straight from the server's database,
newest first: version, time, author, checksum and the size of its content,
never the content.`,
		Example: "  teammemd admin history --repo acme/app --key notes/deploy.md",
		Args:    noArgs,
	}
	fs := cmd.Flags()
	tf := addTokenFlags(fs)
	repo := fs.String("repo", "", "the repo `slug`, e.g. acme/app (required)")
	key := fs.String("key", "", "the entry's `key`, e.g. notes/deploy.md (required)")
	cmd.RunE = body(func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
		if err := repoAndKey(*repo, *key); err != nil {
			return usageError{err}
		}
		st, err := tf.openTokens(ctx)
		if err != nil {
			return err
		}
		defer st.Close()
		revs, err := store.ListHistory(ctx, st, store.HistoryQuery{Repo: *repo, Key: *key, NoContent: true})
		if errors.Is(err, store.ErrNotFound) {
			return fmt.Errorf("repo %s has never been written", *repo)
		}
		if err != nil {
			return err
		}
		if len(revs) == 0 {
			return fmt.Errorf("%s in %s has no revisions%s", *key, *repo, notAKey(*key))
		}
		return printRevisions(stdout, revs)
	})
	return cmd
}

// printRevisions writes one line per revision, newest first: the size of
// its content, never the content.
func printRevisions(w io.Writer, revs []store.Revision) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "VERSION\tTIME\tSUBJECT\tCHECKSUM\tCONTENT")
	for _, r := range revs {
		sum, content := r.Checksum, "none (pruned or purged)"
		switch {
		case r.Deleted:
			sum, content = "-", "deleted"
		case r.Size != nil:
			content = strconv.FormatInt(*r.Size, 10) + " bytes"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\n", r.Version, r.Time.Format(time.RFC3339), api.Printable(r.Subject), sum, content)
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("print history: %w", err)
	}
	return nil
}
