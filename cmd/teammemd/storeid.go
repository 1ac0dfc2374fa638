package main

import (
	"context"
	"fmt"
	"io"
)

// storeRenamer is a store whose identity can be replaced.
type storeRenamer interface {
	NewStoreID(ctx context.Context) (string, error)
}

// runAdminNewStoreID gives the server's database a new identity, the last
// step of restoring it from a backup: daemons that see the identity change
// forget the versions they knew and re-baseline with a full pull. Servers
// already running pick the new identity up within a few seconds.
func runAdminNewStoreID(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("admin new-store-id", stderr)
	tf := addTokenFlags(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("admin new-store-id takes no arguments, got %q", fs.Args())}
	}
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
}
