package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/teammemd/teammemd/server"
	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/auth"
	"github.com/teammemd/teammemd/server/store"
)

// maxSubjectBytes bounds a token's subject.
const maxSubjectBytes = 200

// newTokenCmd creates, lists and revokes the server's API tokens,
// directly in its database (the server may be running).
func newTokenCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "token",
		Short: "Create, list and revoke the server's API tokens",
		Long: `Create, list and revoke the server's API tokens, directly in its database:
the SQLite file in --data or the PostgreSQL database in --store. The server
may be running.`,
		Example: `  teammemd token create --subject alice --repos 'acme/*'
  teammemd token list --json
  teammemd token revoke 3f9a1c0b7d2e`,
	}
	cmd.AddCommand(newTokenCreateCmd(), newTokenListCmd(), newTokenRevokeCmd())
	return cmd
}

// tokenFlags are the flags every token subcommand takes.
type tokenFlags struct {
	data, store, config *string
}

func addTokenFlags(fs *pflag.FlagSet) tokenFlags {
	return tokenFlags{
		data:   fs.String("data", "", "`directory` of the server's SQLite database (default $TEAMMEMD_DATA, [server] data_dir, or "+dataDir()+")"),
		store:  fs.String("store", "", "the server's PostgreSQL database, a postgres:// `URL` (default $TEAMMEMD_STORE or [server] store)"),
		config: fs.String("config", "", "config `file` (default $TEAMMEMD_CONFIG, or config.toml in "+configDir()+")"),
	}
}

// location resolves the store as serve does: --store or --data, then
// $TEAMMEMD_STORE or $TEAMMEMD_DATA, then the config file's [server] store
// or data_dir, then the default data directory.
func (f tokenFlags) location() (location, error) {
	var file server.Config
	if *f.store == "" && *f.data == "" && os.Getenv(storeEnv) == "" && os.Getenv("TEAMMEMD_DATA") == "" {
		cfg, err := loadConfig(*f.config)
		if err != nil {
			return location{}, err
		}
		file = cfg.Server
	}
	loc, err := resolveLocation(*f.store, *f.data, file)
	if err != nil {
		return loc, usageError{err}
	}
	return loc, nil
}

// openTokens opens the existing SQLite database, or the PostgreSQL one.
func (f tokenFlags) openTokens(ctx context.Context) (backend, error) {
	loc, err := f.location()
	if err != nil {
		return nil, err
	}
	if loc.url == "" {
		exists, err := dbExists(loc.dbPath())
		if err != nil {
			return nil, err
		}
		if !exists {
			return nil, fmt.Errorf("no server database at %s (set --data to the server's data directory, or --store to its PostgreSQL database)", loc.dbPath())
		}
	}
	return openAdminBackend(ctx, loc)
}

// dbExists reports whether the database file at path exists.
func dbExists(path string) (bool, error) {
	_, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("server database: %w", err)
	}
	return true, nil
}

// newTokenCreateCmd is "teammemd token create".
func newTokenCreateCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "create --subject NAME --repos PATTERNS",
		Short: "Create a token and print its secret once",
		Long: `Create a token for a user or machine, granting read and write (or with
--read-only, read) access to the repos matching the patterns, and print its
secret once: the server keeps only its hash.`,
		Example: `  teammemd token create --subject alice --repos 'acme/*'
  teammemd token create --subject ci --repos 'acme/app' --read-only --data /var/lib/teammemd
  teammemd token create --subject carol --repos 'acme/app' --review`,
		Args: noArgs,
	}
	fs := cmd.Flags()
	tf := addTokenFlags(fs)
	subject := fs.String("subject", "", "who the token is for, e.g. a user or machine `name` (required)")
	repos := fs.String("repos", "", "comma-separated repo `patterns` the token may access, e.g. 'acme/*,acme/**' (required)")
	readOnly := fs.Bool("read-only", false, "grant read access only (default read and write)")
	review := fs.Bool("review", false, "also grant review: approve and reject the proposals of repos under review")
	cmd.RunE = body(func(ctx context.Context, _ []string, stdout, stderr io.Writer) error {
		if *readOnly && *review {
			return usageError{errors.New("--read-only and --review exclude each other: a reviewer also writes")}
		}
		return runTokenCreate(ctx, tf, *subject, *repos, *readOnly, *review, stdout, stderr)
	})
	return cmd
}

func runTokenCreate(ctx context.Context, tf tokenFlags, subject, repos string, readOnly, review bool, stdout, stderr io.Writer) error {
	if err := validateSubject(subject); err != nil {
		return usageError{err}
	}
	grants, err := parseRepos(repos, readOnly, review)
	if err != nil {
		return usageError{err}
	}
	loc, err := tf.location()
	if err != nil {
		return err
	}
	printAuthModes(stderr, *tf.config)
	return createToken(ctx, loc, subject, grants, stdout, stderr)
}

// parseRepos turns --repos, --read-only and --review into grants.
func parseRepos(repos string, readOnly, review bool) ([]store.Grant, error) {
	if repos == "" {
		return nil, errors.New("--repos is required, e.g. --repos 'acme/*'")
	}
	level := store.LevelWrite
	switch {
	case readOnly:
		level = store.LevelRead
	case review:
		level = store.LevelReview
	}
	grants, err := auth.ParseGrants(repos, level)
	if err != nil {
		return nil, fmt.Errorf("--repos: %w", err)
	}
	return grants, nil
}

// createToken stores a new token in the store at loc, creating the
// database if there is none, and prints the secret alone on stdout. On
// stderr it names the database, and warns when it is a new SQLite file: a
// server started with another data directory will not know the token.
func createToken(ctx context.Context, loc location, subject string, grants []store.Grant, stdout, stderr io.Writer) error {
	existed := true
	if loc.url == "" {
		var err error
		if existed, err = dbExists(loc.dbPath()); err != nil {
			return err
		}
	}
	st, err := openAdminBackend(ctx, loc)
	if err != nil {
		return err
	}
	defer st.Close()
	secret, rec, err := auth.NewTokenRecord(subject, grants, time.Now())
	if err != nil {
		return err
	}
	if err := st.CreateToken(ctx, rec); err != nil {
		return err
	}
	if _, err := fmt.Fprintln(stdout, secret); err != nil {
		return fmt.Errorf("print token: %w", err)
	}
	fmt.Fprintf(stderr, "created token %s for %s (%s) in %s; the secret above is shown only once\n", rec.ID, rec.Subject, formatGrants(grants), loc)
	if !existed {
		fmt.Fprintf(stderr, "new server database created at %s: a server started with another --data (or $TEAMMEMD_DATA, [server] data_dir) will not know this token\n", loc)
	}
	return st.Close()
}

// validateSubject requires a token's subject to be printable text
// (printableSubject) that no sign-in's subject could be
// (auth.TokenSubjectProblem).
func validateSubject(s string) error {
	if err := printableSubject(s); err != nil {
		return err
	}
	if err := auth.TokenSubjectProblem(s); err != nil {
		return fmt.Errorf("--subject %w", err)
	}
	return nil
}

// printableSubject requires a non-empty, printable subject of bounded size.
func printableSubject(s string) error {
	switch {
	case strings.TrimSpace(s) == "":
		return errors.New("--subject is required, e.g. --subject alice")
	case len(s) > maxSubjectBytes:
		return fmt.Errorf("--subject is longer than %d bytes", maxSubjectBytes)
	case !utf8.ValidString(s):
		return errors.New("--subject is not valid UTF-8")
	case strings.ContainsFunc(s, unicode.IsControl):
		return errors.New("--subject contains a control character")
	}
	return nil
}

// newTokenListCmd is "teammemd token list".
func newTokenListCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List tokens: ID, subject, grants, created, revoked",
		Long:  "List the server's tokens, revoked ones too: never a secret or its hash.",
		Example: `  teammemd token list
  teammemd token list --json --store postgres://teammemd@db/teammemd`,
		Args: noArgs,
	}
	fs := cmd.Flags()
	tf := addTokenFlags(fs)
	asJSON := jsonFlag(fs, "the tokens")
	cmd.RunE = body(func(ctx context.Context, _ []string, stdout, stderr io.Writer) error {
		return runTokenList(ctx, tf, *asJSON, stdout, stderr)
	})
	return cmd
}

func runTokenList(ctx context.Context, tf tokenFlags, asJSON bool, stdout, stderr io.Writer) error {
	st, err := tf.openTokens(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	printAuthModes(stderr, *tf.config)
	toks, err := st.ListTokens(ctx)
	if err != nil {
		return err
	}
	if asJSON {
		return writeJSON(stdout, tokenList(toks))
	}
	return printTokens(stdout, toks)
}

// printTokens writes one line per token: never its hash or secret.
func printTokens(w io.Writer, toks []store.Token) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSUBJECT\tGRANTS\tCREATED\tREVOKED")
	for _, t := range toks {
		revoked := "-"
		if !t.RevokedAt.IsZero() {
			revoked = t.RevokedAt.Format(time.RFC3339)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", t.ID, api.Printable(t.Subject), formatGrants(t.Grants), t.CreatedAt.Format(time.RFC3339), revoked)
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("print tokens: %w", err)
	}
	return nil
}

// formatGrants writes grants as "pattern:level,...".
func formatGrants(grants []store.Grant) string {
	parts := make([]string, len(grants))
	for i, g := range grants {
		parts[i] = g.Pattern + ":" + string(g.Level)
	}
	return strings.Join(parts, ",")
}
