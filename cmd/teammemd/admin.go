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

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/store"
)

// maxReasonBytes bounds the reason of a purge.
const maxReasonBytes = 1000

// runAdmin operates on the server's database directly, the SQLite file in
// --data or the PostgreSQL database in --store, as token does (the server
// may be running): list an entry's revisions, purge their content, list the
// purges, and give a restored database a new identity.
func runAdmin(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		adminUsage(stderr)
		return usageError{errors.New("admin: want a subcommand: history, purge, purges, audit or new-store-id")}
	}
	if isHelp(args[0]) {
		adminUsage(stdout)
		return nil
	}
	switch args[0] {
	case "history":
		return runAdminHistory(ctx, args[1:], stdout, stderr)
	case "purge":
		return runAdminPurge(ctx, args[1:], stdout, stderr)
	case "purges":
		return runAdminPurges(ctx, args[1:], stdout, stderr)
	case "audit":
		return runAdminAudit(ctx, args[1:], stdout, stderr)
	case "new-store-id":
		return runAdminNewStoreID(ctx, args[1:], stdout, stderr)
	}
	adminUsage(stderr)
	return usageError{fmt.Errorf("admin: unknown subcommand %q (want history, purge, purges, audit or new-store-id)", args[0])}
}

// adminUsage lists the admin subcommands.
func adminUsage(w io.Writer) {
	fmt.Fprintln(w, `usage: teammemd admin <subcommand> [flags]

subcommands:
  history   list the revisions of one entry: version, time, author, checksum, content size
  purge     drop the content of revisions of one entry from the history for good
  purges    list the audit log of purges: when, who, repo, key, versions, why
  audit     list who wrote, deleted, restored or purged what, and when (never the content)
  new-store-id
            give the database a new identity, the last step of restoring a
            backup: every daemon then re-baselines with a full pull

Run 'teammemd admin <subcommand> -h' for its flags.`)
}

func runAdminPurge(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("admin purge", stderr)
	tf := addTokenFlags(fs)
	repo := fs.String("repo", "", "the repo `slug`, e.g. acme/app (required)")
	key := fs.String("key", "", "the entry's `key`, e.g. notes/deploy.md (required)")
	versions := fs.String("version", "", "comma-separated `versions` to purge, as the history lists them")
	all := fs.Bool("all", false, "purge every revision of the key (the live one only with --include-live)")
	live := fs.Bool("include-live", false, "also purge the live revision, which deletes the entry: daemons pull the deletion")
	actor := fs.String("actor", "", "who purges, for the audit log (default the OS user `name`)")
	reason := fs.String("reason", "", "why, for the audit log, e.g. 'leaked AWS key, rotated'")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("admin purge takes no arguments, got %q", fs.Args())}
	}
	p, err := parsePurge(*repo, *key, *versions, *all, *live, *actor, *reason)
	if err != nil {
		return usageError{err}
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
	if s != "" && validateSubject(s) != nil {
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
		return fmt.Errorf("%w; nothing was purged ('teammemd admin history --repo %s --key %s' lists the versions)", err, p.Repo, p.Key)
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

func runAdminPurges(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("admin purges", stderr)
	tf := addTokenFlags(fs)
	repo := fs.String("repo", "", "list only the purges of this repo `slug`")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("admin purges takes no arguments, got %q", fs.Args())}
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
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Time.Format(time.RFC3339), r.Actor, r.Repo, r.Key,
			strings.Join(parts, ","), deleted, reason)
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("print purges: %w", err)
	}
	return nil
}

func runAdminHistory(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("admin history", stderr)
	tf := addTokenFlags(fs)
	repo := fs.String("repo", "", "the repo `slug`, e.g. acme/app (required)")
	key := fs.String("key", "", "the entry's `key`, e.g. notes/deploy.md (required)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("admin history takes no arguments, got %q", fs.Args())}
	}
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
		return fmt.Errorf("%s in %s has no revisions", *key, *repo)
	}
	return printRevisions(stdout, revs)
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
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\n", r.Version, r.Time.Format(time.RFC3339), r.Subject, sum, content)
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("print history: %w", err)
	}
	return nil
}
