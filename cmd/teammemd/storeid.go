package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"
)

// storeRenamer is a store whose identity can be replaced.
type storeRenamer interface {
	NewStoreID(ctx context.Context) (string, error)
}

// newAdminNewStoreIDCmd gives the server's database a new identity, the last
// step of restoring it from a backup: daemons that see the identity change
// forget the versions they knew and re-baseline with a full pull. Servers
// already running pick the new identity up within a few seconds.
func newAdminNewStoreIDCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "new-store-id",
		Short: "Give the database a new identity, the last step of restoring a backup",
		Long: `Give the server's database a new identity, the last step of restoring it
from a backup: every daemon that sees the identity change forgets the
versions it knew and re-baselines with a full pull. Servers already running
pick the new identity up within a few seconds.`,
		Example: "  teammemd admin new-store-id --data /var/lib/teammemd",
		Args:    noArgs,
	}
	fs := cmd.Flags()
	tf := addTokenFlags(fs)
	cmd.RunE = body(func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
		st, err := tf.openTokens(ctx)
		if err != nil {
			return err
		}
		defer st.Close()
		id, err := st.NewStoreID(ctx)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "new store identity %s: daemons re-baseline with a full pull when they next reach the server\n", id)
		return st.Close()
	})
	return cmd
}
