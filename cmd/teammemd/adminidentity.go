package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/store"
)

// newAdminIdentityCmd is "teammemd admin identity": the bindings of GitHub
// logins to the GitHub users that first signed in as them.
func newAdminIdentityCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "identity",
		Short: "List the GitHub logins bound to GitHub users, or release one",
		Long: `A GitHub login's subject (github:<login>) is bound, the first time the
server sees it, to the GitHub user id of the user that signed in: GitHub
lets a user rename their login and another user take the old one, and the
server refuses that other user (403) the first one's personal lanes, admin
rights and grants. When the login should now be the other user's, release
its binding here: the next GitHub user that signs in as it is bound to it.`,
		Example: `  teammemd admin identity list
  teammemd admin identity unbind github:alice`,
	}
	cmd.AddCommand(newAdminIdentityListCmd(), newAdminIdentityUnbindCmd())
	return cmd
}

// newAdminIdentityListCmd is "teammemd admin identity list".
func newAdminIdentityListCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:     "list",
		Short:   "List every bound subject: its account id and when it was bound",
		Example: "  teammemd admin identity list --json",
		Args:    noArgs,
	}
	fs := cmd.Flags()
	tf := addTokenFlags(fs)
	asJSON := jsonFlag(fs, "the bindings")
	cmd.RunE = body(func(ctx context.Context, _ []string, stdout, _ io.Writer) error {
		st, err := tf.openTokens(ctx)
		if err != nil {
			return err
		}
		defer st.Close()
		bindings, err := st.ListIdentityBindings(ctx)
		if err != nil {
			return err
		}
		if *asJSON {
			return writeJSON(stdout, identityList(bindings))
		}
		return printBindings(stdout, bindings)
	})
	return cmd
}

// printBindings writes one line per binding.
func printBindings(w io.Writer, bindings []store.IdentityBinding) error {
	if len(bindings) == 0 {
		_, err := fmt.Fprintln(w, "no subject is bound to an account")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SUBJECT\tACCOUNT ID\tBOUND")
	for _, b := range bindings {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", api.Printable(b.Subject), api.Printable(b.AccountID), b.BoundAt.Format(time.RFC3339))
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("print identity bindings: %w", err)
	}
	return nil
}

// newAdminIdentityUnbindCmd is "teammemd admin identity unbind".
func newAdminIdentityUnbindCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "unbind SUBJECT",
		Short: "Release a subject's binding, so that the next account that signs in as it is bound",
		Long: `Release the binding of a subject, such as github:alice, to the account that
first signed in as it. The next GitHub user that signs in as the login is
bound to it and gets its personal lanes, admin rights and grants; a web
view session of the user it was bound to ends. A token of that user that a
server accepted before keeps the subject until GitHub's answer about it,
cached for [server.auth.github] cache_ttl (5 minutes by default), runs out.`,
		Example: "  teammemd admin identity unbind github:alice --data /var/lib/teammemd",
		Args:    wantArgs(1, 1, "one subject, such as github:alice (see teammemd admin identity list)"),
	}
	tf := addTokenFlags(cmd.Flags())
	cmd.RunE = body(func(ctx context.Context, args []string, stdout, _ io.Writer) error {
		subject := args[0]
		if err := validateText("the subject", subject, maxSubjectBytes); err != nil {
			return usageError{err}
		}
		st, err := tf.openTokens(ctx)
		if err != nil {
			return err
		}
		defer st.Close()
		if err := unbind(ctx, st, subject, stdout); err != nil {
			return err
		}
		return st.Close()
	})
	return cmd
}

// unbind releases subject's binding in st and says what it was.
func unbind(ctx context.Context, st store.IdentityBindings, subject string, stdout io.Writer) error {
	b, err := st.IdentityBinding(ctx, subject)
	if err == nil {
		err = st.UnbindIdentity(ctx, subject)
	}
	if errors.Is(err, store.ErrBindingNotFound) {
		return notBound(subject)
	}
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "released %s, bound to account %s since %s: the next account that signs in as it is bound to it\n",
		api.Printable(subject), api.Printable(b.AccountID), b.BoundAt.Format(time.RFC3339))
	return err
}

// notBound says subject has no binding, and how subjects are written when
// it lacks the mode's prefix.
func notBound(subject string) error {
	hint := "teammemd admin identity list lists the bound subjects"
	if !strings.Contains(subject, ":") {
		hint = "a GitHub login's subject is github:<login>, e.g. github:" + subject + "; " + hint
	}
	return fmt.Errorf("%s is not bound to an account (%s)", api.Printable(subject), hint)
}
