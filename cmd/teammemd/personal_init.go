package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/spf13/cobra"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/sync/personal"
)

// newPersonalInitCmd is "teammemd personal init".
func newPersonalInitCmd(d deps) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "init",
		Short: "Make your personal key on your first machine and print its recovery code",
		Long: `Make the key that encrypts your personal lane, on your first machine: it
is stored here (the OS keyring, or a 0600 file), and the server keeps a copy
wrapped to a recovery code that is printed once, or to your own passphrase
(--passphrase-stdin). Other machines join with that code or passphrase.

Losing every machine's key and the code means the data cannot be read by
anyone, including the server's operator. When the server already holds a
personal key, init refuses: run "teammemd personal join" instead.`,
		Example: `  teammemd personal init --server https://teammemd.example.com
  printf '%s\n' "$PASSPHRASE" | teammemd personal init --passphrase-stdin`,
		Args: noArgs,
	}
	var f personalFlags
	f.register(cmd.Flags())
	pass := cmd.Flags().Bool("passphrase-stdin", false, "wrap the key to a passphrase read from stdin (at least 12 characters) instead of a new recovery code")
	cmd.RunE = body(func(ctx context.Context, _ []string, stdout, _ io.Writer) error {
		return personalInit(ctx, f, d.secretInput(), *pass, stdout)
	})
	return cmd
}

func personalInit(ctx context.Context, f personalFlags, in secretInput, usePass bool, stdout io.Writer) error {
	env, err := f.open()
	if err != nil {
		return err
	}
	local, err := env.keys.Load(ctx, env.server)
	if err != nil && !errors.Is(err, personal.ErrNoKeys) {
		return err
	}
	onServer, err := env.client.PersonalKey(ctx)
	switch {
	case err == nil && local.Current != nil && local.Current.ID() == onServer.KeyID:
		fmt.Fprintf(stdout, "already initialised: this machine holds the personal key %s that %s keeps (in %s); nothing to do.\n"+
			"To get a new recovery code, run teammemd personal rotate-key.\n", onServer.KeyID, env.server, env.keys.Where(ctx, env.server))
		return nil
	case err == nil:
		return fmt.Errorf("already initialised: %s holds a personal key (%s); run teammemd personal join to use it on this machine", env.server, onServer.KeyID)
	case !isAPICode(err, api.CodePersonalNotInitialized):
		return explainPersonal(err)
	}
	secret, code, err := newSecret(in, usePass)
	if err != nil {
		return err
	}
	k, err := initKey(ctx, env, local)
	if err != nil {
		return err
	}
	if err := uploadKey(ctx, env, k, secret, local); err != nil {
		return err
	}
	printInitDone(stdout, env, k, heldKey(local) != nil, code, env.keys.Where(ctx, env.server))
	return nil
}

// heldKey is the key an earlier init stored here, which init uploads
// rather than making another: nil when there is none, or when the keys
// held are a rotation's.
func heldKey(local personal.Keys) *personal.Key {
	if len(local.Previous) > 0 {
		return nil
	}
	return local.Current
}

// newSecret is the secret a new key is wrapped to: a new recovery code,
// returned also as code for printing, or a passphrase from stdin.
func newSecret(in secretInput, usePass bool) (secret, code string, err error) {
	if usePass {
		secret, err = in.passphrase()
		return secret, "", err
	}
	code, err = personal.NewRecoveryCode()
	return code, code, err
}

// initKey is the key init uploads: the one an interrupted init stored
// here, or a new one, stored before it is sent so that no answer lost on
// the way can leave the server with a key no machine has.
func initKey(ctx context.Context, env personalEnv, local personal.Keys) (*personal.Key, error) {
	if k := heldKey(local); k != nil {
		return k, nil
	}
	k, err := personal.NewKey()
	if err != nil {
		return nil, err
	}
	if err := env.keys.Save(ctx, env.server, personal.Keys{Current: k}); err != nil {
		return nil, fmt.Errorf("store the personal key (nothing was sent): %w", err)
	}
	return k, nil
}

// uploadKey puts k, wrapped to secret, on the server as a new key. When
// another machine was first, the key made here is dropped again.
func uploadKey(ctx context.Context, env personalEnv, k *personal.Key, secret string, before personal.Keys) error {
	wrapped, err := personal.Wrap(k, secret)
	if err != nil {
		return err
	}
	_, err = env.client.PutPersonalKey(ctx, api.KeyEnvelope{KeyID: k.ID(), Envelope: wrapped}, "")
	if err == nil {
		return nil
	}
	if !isAPIStatus(err, http.StatusPreconditionFailed) {
		return explainPersonal(err)
	}
	if before.Current == nil {
		if derr := env.keys.Delete(ctx, env.server); derr != nil {
			return fmt.Errorf("already initialised by another machine meanwhile; run teammemd personal join (and removing the key made here failed: %w)", derr)
		}
	}
	return errors.New("already initialised by another machine meanwhile; run teammemd personal join")
}

func printInitDone(w io.Writer, env personalEnv, k *personal.Key, held bool, code, where string) {
	how := " made,"
	if held {
		how = ", the one this machine held already,"
	}
	fmt.Fprintf(w, "Personal key %s%s kept in %s, and stored on %s wrapped to your ", k.ID(), how, where, env.server)
	if code == "" {
		fmt.Fprint(w, "passphrase.\n\n")
	} else {
		fmt.Fprintf(w, "recovery code.\n\nYour recovery code, shown this once; write it down and keep it away from this machine:\n\n    %s\n\n", code)
	}
	fmt.Fprint(w, lossWarning+"\nOn each other machine of yours, run: teammemd personal join --server "+env.server+"\n\n"+whatSyncs)
}

// lossWarning is said wherever a new secret is shown.
const lossWarning = "Warning: if every machine's key and this code or passphrase are lost, your personal memory\n" +
	"cannot be read by anyone, including the server's operator. Nobody can reset it.\n"

func isAPICode(err error, code string) bool {
	var ae *api.Error
	return errors.As(err, &ae) && ae.Code == code
}

func isAPIStatus(err error, status int) bool {
	var ae *api.Error
	return errors.As(err, &ae) && ae.Status == status
}
