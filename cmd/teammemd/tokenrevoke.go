package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"time"

	"github.com/spf13/cobra"

	"github.com/teammemd/teammemd/server/auth"
	"github.com/teammemd/teammemd/server/store"
)

// newTokenRevokeCmd is "teammemd token revoke".
func newTokenRevokeCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "revoke ID|SECRET",
		Short: "Revoke a token by its ID, or by its secret",
		Long: `Revoke a token by the ID teammemd token list shows (12 hex digits), or by
its secret (tmd_...), such as one that leaked: the secret is hashed to find
its token, whose ID is printed, and never shown. Servers stop accepting the
token within their token cache's lifetime.`,
		Example: `  teammemd token revoke 3f9a1c0b7d2e
  teammemd token revoke 3f9a1c0b7d2e --data /var/lib/teammemd
  teammemd token revoke "$(cat leaked.tok)"`,
		Args: wantArgs(1, 1, "one token ID (see teammemd token list) or secret"),
	}
	tf := addTokenFlags(cmd.Flags())
	cmd.RunE = body(func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
		return runTokenRevoke(ctx, tf, args[0], stdout, stderr)
	})
	return cmd
}

func runTokenRevoke(ctx context.Context, tf tokenFlags, arg string, stdout, stderr io.Writer) error {
	st, err := tf.openTokens(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	printAuthModes(stderr, *tf.config)
	id, bySecret, err := revokedID(ctx, st, arg)
	if err != nil {
		return err
	}
	if at, err := revokedAt(ctx, st, id); err != nil || !at.IsZero() {
		if err == nil {
			_, err = fmt.Fprintf(stdout, "token %s was revoked already, at %s; nothing changed\n", id, at.UTC().Format(time.RFC3339))
		}
		return err
	}
	err = st.RevokeToken(ctx, id, time.Now())
	if errors.Is(err, store.ErrTokenNotFound) {
		return noTokenWithID(id)
	}
	if err != nil {
		return err
	}
	of := ""
	if bySecret {
		of = " (the token of the secret given)"
	}
	fmt.Fprintf(stdout, "revoked token %s%s; servers stop accepting it within %v\n", id, of, auth.CacheTTL)
	return st.Close()
}

// revokedID is the ID of the token arg names: arg itself, or for a
// secret the ID of the valid token whose hash it has.
func revokedID(ctx context.Context, st store.Tokens, arg string) (id string, bySecret bool, err error) {
	if auth.FormOf(arg) != auth.ModeToken {
		return arg, false, nil
	}
	tok, err := st.TokenByHash(ctx, auth.HashToken(arg))
	if errors.Is(err, store.ErrTokenNotFound) {
		return "", true, errors.New("no token has the secret given: it is unknown, or revoked already (teammemd token list shows the tokens)")
	}
	if err != nil {
		return "", true, fmt.Errorf("look up the token of the secret given: %w", err)
	}
	return tok.ID, true, nil
}

// revokedAt is when the token id was revoked, zero while it is valid or
// when no token has the ID (RevokeToken then says so).
func revokedAt(ctx context.Context, st store.Tokens, id string) (time.Time, error) {
	toks, err := st.ListTokens(ctx)
	if err != nil {
		return time.Time{}, fmt.Errorf("list tokens: %w", err)
	}
	for _, t := range toks {
		if t.ID == id {
			return t.RevokedAt, nil
		}
	}
	return time.Time{}, nil
}

// tokenIDForm is the form of the IDs teammemd token create gives.
var tokenIDForm = regexp.MustCompile(`^[0-9a-f]{12}$`)

// noTokenWithID says no token has id, naming it only when it has the form
// of an ID: anything else may be a secret, mistyped or cut short.
func noTokenWithID(id string) error {
	if tokenIDForm.MatchString(id) {
		return fmt.Errorf("no token with ID %q (teammemd token list shows them)", id)
	}
	return errors.New("no token with the ID given (not shown: it is not 12 hex digits, and may be a secret); teammemd token list shows the IDs")
}
