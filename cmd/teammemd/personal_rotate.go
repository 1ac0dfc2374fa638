package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/teammemd/teammemd/checkup"
	"github.com/teammemd/teammemd/sync/personal"
)

// newPersonalRotateCmd is "teammemd personal rotate-key".
func newPersonalRotateCmd(d deps) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "rotate-key",
		Short: "Replace your personal key and recovery code, re-encrypting every lane",
		Long: `Replace your personal key, for instance after a machine or the recovery
code was lost: a new key, wrapped to a new recovery code (printed once) or
to a passphrase (--passphrase-stdin); every lane on the server is decrypted
here and written again under the new key, and the old lanes are dropped.
The old recovery code no longer opens anything.

Other machines must join again (teammemd personal join, with the new code):
until they do, their personal lanes stop, and nothing is written there or on
the server. An interrupted rotation is finished by running rotate-key again,
which prints another new code: the last one printed is the one that opens
the key.`,
		Example: `  teammemd personal rotate-key
  printf '%s\n' "$NEW_PASSPHRASE" | teammemd personal rotate-key --passphrase-stdin`,
		Args: noArgs,
	}
	var f personalFlags
	f.register(cmd.Flags())
	pass := cmd.Flags().Bool("passphrase-stdin", false, "wrap the new key to a passphrase read from stdin (at least 12 characters) instead of a new recovery code")
	cmd.RunE = body(func(ctx context.Context, _ []string, stdout, _ io.Writer) error {
		return personalRotate(ctx, f, d.secretInput(), *pass, stdout)
	})
	return cmd
}

func personalRotate(ctx context.Context, f personalFlags, in secretInput, usePass bool, stdout io.Writer) error {
	env, err := f.open()
	if err != nil {
		return err
	}
	secret, code, err := newSecret(in, usePass)
	if err != nil {
		return err
	}
	r := personal.Rotation{Client: env.client, Store: env.keys, Server: env.server, Secret: secret,
		Published: func(id string) { printRotated(stdout, id, code) },
		Progress: func(c personal.LaneCopied) {
			fmt.Fprintf(stdout, "lane %s: %d %s re-encrypted into lane %s\n", c.From, c.Entries, checkup.Plural(c.Entries, "entry", "entries"), c.To)
		},
	}
	res, err := r.Run(ctx)
	if errors.Is(err, personal.ErrNoKeys) {
		return fmt.Errorf("%w; rotate-key runs on a machine that holds the current key", err)
	}
	if err != nil {
		return fmt.Errorf("%w; the rotation is not finished: run teammemd personal rotate-key again to finish it", explainPersonal(err))
	}
	verb := "Rotated"
	if res.Resumed {
		verb = "Finished the rotation"
	}
	fmt.Fprintf(stdout, "%s: personal key %s replaces %s; %d %s moved to it.\n"+
		"Every other machine must join again: run teammemd personal join there with the new code or passphrase.\n"+
		"Until then their personal lanes stop, and nothing of theirs is lost.\n",
		verb, res.New, res.Old, len(res.Lanes), checkup.Plural(len(res.Lanes), "lane", "lanes"))
	return nil
}

// printRotated shows the new secret once the server holds the key
// wrapped to it.
func printRotated(w io.Writer, keyID, code string) {
	if code == "" {
		fmt.Fprintf(w, "The server holds the new key %s, wrapped to your new passphrase.\n\n%s\n", keyID, lossWarning)
		return
	}
	fmt.Fprintf(w, "The server holds the new key %s. Your new recovery code, shown this once; write it down:\n\n    %s\n\n"+
		"The old code no longer opens anything.\n%s\n", keyID, code, lossWarning)
}
