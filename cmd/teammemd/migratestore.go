package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/teammemd/teammemd/server/store/postgres"
	"github.com/teammemd/teammemd/server/store/sqlite"
)

// newMigrateStoreCmd copies the SQLite database of a data directory into a
// PostgreSQL database and verifies the copy.
func newMigrateStoreCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "migrate-store --from DIR --to postgres://...",
		Short: "Copy the server's SQLite database into PostgreSQL and verify it",
		Long: `Copy every repo (entries, tombstones, versions, history), every token,
the audit log of purges, the proposals, the personal lanes and the identity
bindings of the SQLite database in DIR into the PostgreSQL database, and
verify each repo's copy (version, counts, checksums). Running it again is
safe: repos already copied are left alone, repos written in the source
since are copied again, purges made in the source since are made in
PostgreSQL too, and repos written in PostgreSQL since, like subjects bound
there to another account, are reported and left alone. Each run gives the
PostgreSQL database a new store identity, so daemons that synced with
either database re-baseline when they reach it.`,
		Example: "  teammemd migrate-store --from /var/lib/teammemd --to postgres://teammemd@db.internal/teammemd",
		Args:    noArgs,
	}
	fs := cmd.Flags()
	from := fs.String("from", "", "data `directory` of the SQLite database to copy (required)")
	to := fs.String("to", "", "the PostgreSQL database to copy into, a postgres:// `URL` (default $TEAMMEMD_STORE)")
	cmd.RunE = body(func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
		dst := cmp.Or(*to, os.Getenv(storeEnv))
		switch {
		case *from == "":
			return usageError{errors.New("migrate-store: --from is required: the data directory of the SQLite database")}
		case dst == "":
			return usageError{errors.New("migrate-store: --to is required: the postgres:// URL of the database to copy into")}
		case !postgres.IsURL(dst):
			return usageError{errors.New("migrate-store: --to must be a postgres:// or postgresql:// URL")}
		}
		return migrateSQLite(ctx, location{dataDir: *from}, dst, stdout)
	})
	return cmd
}

// migrateSQLite copies the SQLite database at src into the PostgreSQL
// database at dstURL and prints each repo's outcome and a summary.
func migrateSQLite(ctx context.Context, src location, dstURL string, stdout io.Writer) error {
	exists, err := dbExists(src.dbPath())
	if err != nil {
		return err
	}
	if !exists {
		return fmt.Errorf("no server database at %s (set --from to the server's data directory)", src.dbPath())
	}
	from, err := sqlite.Open(ctx, src.dbPath(), sqlite.Options{KeepSchema: true})
	if err != nil {
		return olderSchemaHint(err, src)
	}
	defer from.Close()
	to, err := postgres.Open(ctx, dstURL, postgres.Options{})
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	defer to.Close()
	fmt.Fprintf(stdout, "copying %s into %s\n", src.dbPath(), to)
	report, err := to.CopyFrom(ctx, from, func(slug, outcome string) {
		fmt.Fprintf(stdout, "  %s: %s\n", slug, outcome)
	})
	fmt.Fprintf(stdout, "repos: %d copied, %d updated, %d up to date, %d diverged; %d entries and %d revisions written\n",
		report.Repos[postgres.Copied], report.Repos[postgres.Updated], report.Repos[postgres.Current], report.Repos[postgres.Diverged],
		report.Entries, report.Revisions)
	fmt.Fprintf(stdout, "tokens: %d copied, %d revoked, %d already there\n", report.TokensCopied, report.TokensRevoked, report.TokensKept)
	fmt.Fprintf(stdout, "purges: %d copied\n", report.PurgesCopied)
	fmt.Fprintf(stdout, "proposals: %d copied\n", report.ProposalsCopied)
	fmt.Fprintf(stdout, "identity bindings: %d copied, %d already there\n", report.BindingsCopied, report.BindingsKept)
	personal, perr := to.CopyPersonalFrom(ctx, from)
	err = errors.Join(err, perr)
	fmt.Fprintf(stdout, "personal lanes: %d copied, %d updated, %d up to date, %d diverged; keys: %d copied, %d already there\n",
		personal.Lanes[postgres.Copied], personal.Lanes[postgres.Updated], personal.Lanes[postgres.Current], personal.Lanes[postgres.Diverged],
		personal.KeysCopied, personal.KeysKept)
	id, idErr := to.NewStoreID(ctx)
	if idErr == nil {
		fmt.Fprintf(stdout, "new store identity %s\n", id)
	}
	if err = errors.Join(err, idErr); err != nil {
		return fmt.Errorf("migrate-store: %w", err)
	}
	fmt.Fprintln(stdout, "every repo copied and verified (version, counts, checksums)")
	return nil
}
