package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/rogpeppe/go-internal/diff"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/teammemd/teammemd/internal/shell"
	"github.com/teammemd/teammemd/scan"
	"github.com/teammemd/teammemd/server/api"
	memsync "github.com/teammemd/teammemd/sync"
)

// repoCommand parses the flags that name one repo, as sync's do, and
// opens its engine.
type repoCommand struct {
	f syncFlags
}

// flags registers --dir, --repo, --config and the client flags in fs and
// returns it.
func (c *repoCommand) flags(fs *pflag.FlagSet) *pflag.FlagSet {
	fs.StringVar(&c.f.dir, "dir", "", "team memory directory (default: discovered from the git checkout in the current directory)")
	fs.StringVar(&c.f.repo, "repo", "", "repo slug, e.g. acme/app (default: from remote.origin.url)")
	fs.StringVar(&c.f.config, "config", "", "config file (default $TEAMMEMD_CONFIG, then $XDG_CONFIG_HOME/teammemd/config.toml)")
	c.f.client.register(fs)
	return fs
}

// engine builds the engine for the repo the flags name, and its scanner.
func (c *repoCommand) engine(stderr io.Writer) (*memsync.Engine, *scan.Scanner, error) {
	cfg, err := loadConfig(c.f.config)
	if err != nil {
		return nil, nil, err
	}
	t, err := findTarget(c.f, cfg, "pass --dir and --repo")
	if err != nil {
		return nil, nil, err
	}
	return buildSyncEngine(t.withTarget(c.f, cfg), cfg, t.dir, t.repo, stderr)
}

// newHistoryCmd lists the revisions of one key, or of the whole repo.
func newHistoryCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "history [KEY]",
		Short: "List the revisions of a note, or of every note, from the server",
		Long: `List the revisions the server keeps of one note, or of every note of the
repo without KEY, newest first: version, time, author, size and checksum.
The repo is the git checkout in the current directory, or --repo and --dir.`,
		Example: `  teammemd history notes/deploy.md
  teammemd history --json
  teammemd history notes/deploy.md --repo acme/app --dir ~/src/app/team`,
		Args: wantArgs(0, 1, "at most one KEY"),
	}
	c := repoCommand{}
	fs := c.flags(cmd.Flags())
	asJSON := jsonFlag(fs, "the revisions")
	cmd.RunE = body(func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
		pos := args
		key := ""
		if len(pos) == 1 {
			key = pos[0]
			if err := keyArg(key); err != nil {
				return err
			}
		}
		eng, _, err := c.engine(stderr)
		if err != nil {
			return err
		}
		revs, err := eng.History(ctx, key)
		if err != nil {
			return explainSyncError(err)
		}
		if *asJSON {
			return writeJSON(stdout, historyJSON{Key: key, Revisions: revs})
		}
		return printHistory(stdout, revs, key == "")
	})
	return cmd
}

// printHistory writes one line per revision, newest first: version, time,
// author, size or "deleted", checksum, the key for a whole repo, and the
// client that wrote it ("-" when the server recorded none).
func printHistory(w io.Writer, revs []api.Revision, withKey bool) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	head := "VERSION\tTIME\tAUTHOR\tSIZE\tCHECKSUM"
	if withKey {
		head += "\tKEY"
	}
	fmt.Fprintln(tw, head+"\tCLIENT")
	for _, r := range revs {
		line := fmt.Sprintf("%d\t%s\t%s\t%s\t%s", r.Version, r.Time.UTC().Format("2006-01-02 15:04:05Z"),
			api.Printable(r.Subject), revSize(r), shortSum(r.Checksum))
		if withKey {
			line += "\t" + api.Printable(r.Key)
		}
		fmt.Fprintln(tw, line+"\t"+cmp.Or(api.Printable(r.Client), "-"))
	}
	return tw.Flush()
}

// revSize is a revision's size in bytes, "deleted", or "pruned" for one
// whose content the server no longer keeps (dropped by its retention, or
// purged: the history does not tell them apart, the audit does).
func revSize(r api.Revision) string {
	switch {
	case r.Deleted:
		return "deleted"
	case r.Size == nil:
		return "pruned"
	}
	return strconv.FormatInt(*r.Size, 10)
}

// shortSum shows the first 12 hex digits of a checksum, "-" for none.
func shortSum(sum string) string {
	hex := strings.TrimPrefix(sum, "sha256:")
	if hex == "" {
		return "-"
	}
	return hex[:min(12, len(hex))]
}

// newShowCmd prints one revision of a key: KEY@VERSION, or KEY for the
// newest.
func newShowCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "show KEY[@VERSION]",
		Short: "Print a revision of a note: KEY[@VERSION]",
		Long: `Print the content of a revision of a note from the server: KEY@VERSION, or
KEY for the newest. With --json, the revision with its metadata.`,
		Example: `  teammemd show notes/deploy.md
  teammemd show notes/deploy.md@3
  teammemd show notes/deploy.md@3 --json`,
		Args: wantArgs(1, 1, "one KEY[@VERSION]"),
	}
	c := repoCommand{}
	fs := c.flags(cmd.Flags())
	asJSON := jsonFlag(fs, "the revision, its content and metadata")
	cmd.RunE = body(func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
		pos := args
		key, version, err := keyVersionArg(pos[0])
		if err != nil {
			return err
		}
		eng, _, err := c.engine(stderr)
		if err != nil {
			return err
		}
		if *asJSON {
			return showRevisionJSON(ctx, eng, key, version, stdout)
		}
		content, err := revisionContent(ctx, eng, key, version)
		if err != nil {
			return err
		}
		_, err = io.WriteString(stdout, content)
		return err
	})
	return cmd
}

// revisionContent returns the content of a revision, or says why it has
// none.
func revisionContent(ctx context.Context, eng *memsync.Engine, key string, version int64) (string, error) {
	rev, err := eng.Revision(ctx, key, version)
	if err != nil {
		return "", explainSyncError(err)
	}
	switch {
	case rev.Deleted:
		return "", fmt.Errorf("version %d of %s is its deletion: it has no content (teammemd history %s lists the others)", rev.Version, key, shell.Quote(key))
	case rev.Content == nil:
		return "", fmt.Errorf("the server no longer keeps the content of version %d of %s (pruned by its retention, or purged)", rev.Version, key)
	}
	return *rev.Content, nil
}

// newDiffCmd prints a unified diff of a key: the newest revision, or V1,
// against the local file; or V1 against V2.
func newDiffCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "diff KEY [V1 [V2]]",
		Short: "Show what changed in a note: KEY [V1 [V2]], against the local file by default",
		Long: `Print a unified diff of a note: the newest revision on the server, or
version V1, against the local file; or version V1 against V2.`,
		Example: `  teammemd diff notes/deploy.md
  teammemd diff notes/deploy.md 3
  teammemd diff notes/deploy.md 3 5`,
		Args: wantArgs(1, 3, "KEY [V1 [V2]]"),
	}
	c := repoCommand{}
	c.flags(cmd.Flags())
	cmd.RunE = body(func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
		pos := args
		key := pos[0]
		if err := keyArg(key); err != nil {
			return err
		}
		versions, err := parseDiffVersions(pos[1:])
		if err != nil {
			return usageError{err}
		}
		eng, _, err := c.engine(stderr)
		if err != nil {
			return err
		}
		oldName, old, err := diffSide(ctx, eng, key, versions[0])
		if err != nil {
			return err
		}
		newName, cur, err := diffSide(ctx, eng, key, versions[1])
		if err != nil {
			return err
		}
		_, err = stdout.Write(diff.Diff(oldName, []byte(old), newName, []byte(cur)))
		return err
	})
	return cmd
}

// parseDiffVersions returns the two sides: a version, 0 for the newest on
// the left, and -1 for the local file on the right.
func parseDiffVersions(args []string) ([2]int64, error) {
	out := [2]int64{0, -1}
	for i, a := range args {
		v, err := strconv.ParseInt(a, 10, 64)
		if err != nil || v < 1 {
			return out, fmt.Errorf("version %q: want a version number as teammemd history lists it", a)
		}
		out[i] = v
	}
	return out, nil
}

// diffSide returns the name and content of one side of a diff: the local
// file for version -1 (empty when missing), else a revision (empty for a
// deletion).
func diffSide(ctx context.Context, eng *memsync.Engine, key string, version int64) (string, string, error) {
	if version < 0 {
		data, err := eng.ReadLocal(key)
		if errors.Is(err, fs.ErrNotExist) {
			return "local/" + key + " (missing)", "", nil
		}
		if err != nil {
			return "", "", fmt.Errorf("read local %s: %w", key, err)
		}
		return "local/" + key, string(data), nil
	}
	rev, err := eng.Revision(ctx, key, version)
	if err != nil {
		return "", "", explainSyncError(err)
	}
	name := fmt.Sprintf("%s@%d", key, rev.Version)
	switch {
	case rev.Deleted:
		return name + " (deleted)", "", nil
	case rev.Content == nil:
		return "", "", fmt.Errorf("the server no longer keeps the content of version %d of %s (pruned by its retention, or purged)", rev.Version, key)
	}
	return name, *rev.Content, nil
}
