package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/teammemd/teammemd/sync/personal"
)

// newPersonalJoinCmd is "teammemd personal join".
func newPersonalJoinCmd(d deps) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "join",
		Short: "Bring your personal key to this machine with your recovery code or passphrase",
		Long: `Bring your personal key to this machine: download it from the server,
wrapped as personal init left it, open it with your recovery code or
passphrase, and store it here (the OS keyring, or a 0600 file). The code is
read from the terminal without echo, or from stdin when stdin is not a
terminal or with --code-stdin.

Run it again after the key was rotated on another machine. A wrong code is
an error (exit status 1) and nothing is written.`,
		Example: `  teammemd personal join --server https://teammemd.example.com
  printf '%s\n' "$RECOVERY_CODE" | teammemd personal join --code-stdin`,
		Args: noArgs,
	}
	var f personalFlags
	f.register(cmd.Flags())
	fromStdin := cmd.Flags().Bool("code-stdin", false, "read the recovery code or passphrase from stdin")
	cmd.RunE = body(func(ctx context.Context, _ []string, stdout, stderr io.Writer) error {
		return personalJoin(ctx, f, d.secretInput(), *fromStdin, stdout, stderr)
	})
	return cmd
}

func personalJoin(ctx context.Context, f personalFlags, in secretInput, fromStdin bool, stdout, stderr io.Writer) error {
	env, err := f.open()
	if err != nil {
		return err
	}
	onServer, err := env.client.PersonalKey(ctx)
	if err != nil {
		return explainPersonal(err)
	}
	local, err := env.keys.Load(ctx, env.server)
	switch {
	case err == nil && local.Current.ID() == onServer.KeyID && len(local.Previous) > 0:
		return errors.New("this machine is rotating the personal key and holds it already: run teammemd personal rotate-key to finish the rotation")
	case err == nil && local.Current.ID() == onServer.KeyID:
		fmt.Fprintf(stdout, "already joined: this machine holds the personal key %s (in %s)\n", onServer.KeyID, env.keys.Where(ctx, env.server))
		return nil
	}
	secret, err := in.ask("recovery code or passphrase", fromStdin, stderr)
	if err != nil {
		return err
	}
	k, err := personal.Unwrap(onServer.Envelope, secret)
	if errors.Is(err, personal.ErrWrongSecret) {
		return fmt.Errorf("%w; nothing was written: check the recovery code (its letters and digits; dashes, spaces and case do not matter) or the passphrase (exactly as it was set) and try again", err)
	}
	if err != nil {
		return err
	}
	if k.ID() != onServer.KeyID {
		return fmt.Errorf("the wrapped key is %s but the server names %s: it was not stored by teammemd personal init or rotate-key; nothing was written", k.ID(), onServer.KeyID)
	}
	if err := env.keys.Save(ctx, env.server, personal.Keys{Current: k}); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "Joined: personal key %s kept in %s. %s\n\n%s",
		k.ID(), env.keys.Where(ctx, env.server), whoSyncsLanes(ctx), whatSyncs)
	return nil
}

// whoSyncsLanes says that the daemon syncs the personal lanes from now
// on, or, when none answers on its control socket, how to start it.
func whoSyncsLanes(ctx context.Context) string {
	if _, ok := runningDaemon(ctx); !ok {
		return "No daemon runs on this machine yet: teammemd service install (or teammemd setup claude) runs it as your service, and it syncs your personal lanes."
	}
	return "The daemon syncs your personal lanes from now on."
}
