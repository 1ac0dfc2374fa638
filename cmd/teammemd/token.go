package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/teammemd/teammemd/server"
	"github.com/teammemd/teammemd/server/auth"
	"github.com/teammemd/teammemd/server/store"
)

// maxSubjectBytes bounds a token's subject.
const maxSubjectBytes = 200

// runToken creates, lists and revokes the server's API tokens, directly in
// its database (the server may be running).
func runToken(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		tokenUsage(stderr)
		return usageError{errors.New("token: want a subcommand: create, list or revoke")}
	}
	if isHelp(args[0]) {
		tokenUsage(stdout)
		return nil
	}
	switch args[0] {
	case "create":
		return runTokenCreate(ctx, args[1:], stdout, stderr)
	case "list":
		return runTokenList(ctx, args[1:], stdout, stderr)
	case "revoke":
		return runTokenRevoke(ctx, args[1:], stdout, stderr)
	}
	tokenUsage(stderr)
	return usageError{fmt.Errorf("token: unknown subcommand %q (want create, list or revoke)", args[0])}
}

// tokenUsage lists the token subcommands.
func tokenUsage(w io.Writer) {
	fmt.Fprintln(w, `usage: teammemd token <subcommand> [flags]

subcommands:
  create    create a token and print its secret once
  list      list tokens: ID, subject, grants, created, revoked
  revoke    revoke a token by ID

Run 'teammemd token <subcommand> -h' for its flags.`)
}

// tokenFlags are the flags every token subcommand takes.
type tokenFlags struct {
	data, store, config *string
}

func addTokenFlags(fs *flag.FlagSet) tokenFlags {
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
	st, _, err := openBackend(ctx, loc, nil)
	return st, err
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

func runTokenCreate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("token create", stderr)
	tf := addTokenFlags(fs)
	subject := fs.String("subject", "", "who the token is for, e.g. a user or machine `name` (required)")
	repos := fs.String("repos", "", "comma-separated repo `patterns` the token may access, e.g. 'acme/*,acme/**' (required)")
	readOnly := fs.Bool("read-only", false, "grant read access only (default read and write)")
	review := fs.Bool("review", false, "also grant review: approve and reject the proposals of repos under review")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("token create takes no arguments, got %q", fs.Args())}
	}
	if err := validateSubject(*subject); err != nil {
		return usageError{err}
	}
	if *readOnly && *review {
		return usageError{errors.New("--read-only and --review exclude each other: a reviewer also writes")}
	}
	grants, err := parseRepos(*repos, *readOnly, *review)
	if err != nil {
		return usageError{err}
	}
	loc, err := tf.location()
	if err != nil {
		return err
	}
	printAuthModes(stderr, *tf.config)
	return createToken(ctx, loc, *subject, grants, stdout, stderr)
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
	st, _, err := openBackend(ctx, loc, nil)
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

// validateSubject requires a non-empty, printable subject of bounded size.
func validateSubject(s string) error {
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

func runTokenList(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("token list", stderr)
	tf := addTokenFlags(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("token list takes no arguments, got %q", fs.Args())}
	}
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
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", t.ID, t.Subject, formatGrants(t.Grants), t.CreatedAt.Format(time.RFC3339), revoked)
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

func runTokenRevoke(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("token revoke", stderr)
	tf := addTokenFlags(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageError{errors.New("token revoke takes one token ID (see teammemd token list)")}
	}
	id := fs.Arg(0)
	st, err := tf.openTokens(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	printAuthModes(stderr, *tf.config)
	err = st.RevokeToken(ctx, id, time.Now())
	if errors.Is(err, store.ErrTokenNotFound) {
		return fmt.Errorf("no token with ID %q", id)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "revoked token %s; servers stop accepting it within %v\n", id, auth.CacheTTL)
	return st.Close()
}
