package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/teammemd/teammemd/server/store/sqlite"
)

// errBackupPostgres is what admin backup says of a PostgreSQL store,
// whose own tools back it up.
var errBackupPostgres = errors.New("the PostgreSQL store is backed up with PostgreSQL's tools: pg_dump --format=custom --file teammemd.dump 'postgres://...' (see docs/07-backup-restore.md)")

// newAdminBackupCmd is "teammemd admin backup": a consistent copy of the
// SQLite database, made while the server runs.
func newAdminBackupCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "backup --to FILE",
		Short: "Copy the server's SQLite database to a new file, while the server runs",
		Long: `Copy the server's SQLite database to a new file, consistent as of one
moment, while the server runs: every write acknowledged before it began is
in the copy. The file must not exist; it is written beside its final name,
checked with SQLite's quick check, synced and only then put in place, with
mode 0600 (it holds every note and the tokens' hashes). To restore it, see
docs/07-backup-restore.md. A PostgreSQL store is backed up with pg_dump.`,
		Example: `  teammemd admin backup --data /var/lib/teammemd --to /backup/teammemd-$(date +%F).db`,
		Args:    noArgs,
	}
	fs := cmd.Flags()
	tf := addTokenFlags(fs)
	to := fs.String("to", "", "the backup `file` to create (required; never replaced)")
	cmd.RunE = body(func(ctx context.Context, _ []string, stdout, _ io.Writer) error {
		if *to == "" {
			return usageError{errors.New("--to is required, e.g. --to /backup/teammemd.db")}
		}
		loc, err := tf.location()
		if err != nil {
			return err
		}
		if loc.url != "" {
			return usageError{errBackupPostgres}
		}
		info, err := sqlite.Backup(ctx, loc.dbPath(), *to)
		if err != nil {
			return fmt.Errorf("back up %s: %w", loc.dbPath(), err)
		}
		fmt.Fprintf(stdout, "backed up %s to %s: %d repos, %d entries, %d bytes, store identity %s\n",
			loc.dbPath(), *to, info.Repos, info.Entries, info.Bytes, info.StoreID)
		return nil
	})
	return cmd
}
