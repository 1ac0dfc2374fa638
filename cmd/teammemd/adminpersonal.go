package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/store"
)

// newAdminPersonalCmd is "teammemd admin personal": the personal lanes of
// every subject, as sizes; their content is ciphertext the server cannot
// read.
func newAdminPersonalCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "personal",
		Short: "List the subjects' personal lanes by size, or purge one subject's",
		Long: `The personal lane holds each person's own memory, encrypted by their
clients with a key the server never sees (docs/PROTOCOL.md section 16). The
server, and these commands, know only its subjects, sizes and times.`,
		Example: `  teammemd admin personal list --json
  teammemd admin personal purge --subject alice --reason 'left the company'`,
	}
	cmd.AddCommand(newAdminPersonalListCmd(), newAdminPersonalPurgeCmd())
	return cmd
}

// newAdminPersonalListCmd is "teammemd admin personal list".
func newAdminPersonalListCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:     "list",
		Short:   "List every subject with a personal lane: lanes, entries, bytes, last change",
		Example: "  teammemd admin personal list --json",
		Args:    noArgs,
	}
	fs := cmd.Flags()
	tf := addTokenFlags(fs)
	asJSON := jsonFlag(fs, "the subjects")
	cmd.RunE = body(func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
		st, err := tf.openTokens(ctx)
		if err != nil {
			return err
		}
		defer st.Close()
		subjects, err := st.PersonalSubjects(ctx)
		if err != nil {
			return err
		}
		if *asJSON {
			return writeJSON(stdout, personalList(subjects))
		}
		return printPersonalSubjects(stdout, subjects)
	})
	return cmd
}

// printPersonalSubjects writes one line per subject.
func printPersonalSubjects(w io.Writer, subjects []store.PersonalSubject) error {
	if len(subjects) == 0 {
		_, err := fmt.Fprintln(w, "no subject has a personal lane")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SUBJECT\tKEY\tLANES\tENTRIES\tBYTES\tLAST MODIFIED")
	for _, p := range subjects {
		key, modified := "yes", "-"
		if p.KeyID == "" {
			key = "none"
		}
		if !p.LastModified.IsZero() {
			modified = p.LastModified.Format(time.RFC3339)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%s\n", api.Printable(p.Subject), key, p.Lanes, p.Usage.Entries, p.Usage.Bytes, modified)
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("print personal lanes: %w", err)
	}
	return nil
}

// newAdminPersonalPurgeCmd is "teammemd admin personal purge".
func newAdminPersonalPurgeCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "purge --subject SUBJECT",
		Short: "Drop every personal lane of one subject and its key, for good",
		Long: `Drop every personal lane of one subject, with its entries and history,
and the subject's wrapped key, for good, and record it in the audit log of
purges with its actor and reason. The server cannot decrypt a lane, so
nothing is read: the subject's machines keep their own files, and can
start a new personal lane with "teammemd personal init".`,
		Example: "  teammemd admin personal purge --subject alice --reason 'left the company'",
		Args:    noArgs,
	}
	fs := cmd.Flags()
	tf := addTokenFlags(fs)
	subject := fs.String("subject", "", "the `subject` whose lanes to drop, as admin personal list names it (required)")
	actor := fs.String("actor", "", "who purges, for the audit log (default the OS user `name`)")
	reason := fs.String("reason", "", "why, for the audit log, e.g. 'left the company'")
	cmd.RunE = body(func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
		who, err := parsePersonalPurge(*subject, *actor, *reason)
		if err != nil {
			return usageError{err}
		}
		st, err := tf.openTokens(ctx)
		if err != nil {
			return err
		}
		defer st.Close()
		at := time.Now().UTC()
		res, err := st.PurgePersonal(ctx, *subject, who, *reason, at)
		if errors.Is(err, store.ErrNotFound) {
			return fmt.Errorf("subject %q has no personal lane and no key ('teammemd admin personal list' lists those that do)", *subject)
		}
		if err != nil {
			return err
		}
		if err := printPersonalPurge(stdout, *subject, who, at, res); err != nil {
			return err
		}
		return st.Close()
	})
	return cmd
}

// parsePersonalPurge checks the flags of admin personal purge and returns
// the actor.
func parsePersonalPurge(subject, actor, reason string) (string, error) {
	if subject == "" {
		return "", errors.New("--subject is required")
	}
	if err := validateText("--subject", subject, maxSubjectBytes); err != nil {
		return "", err
	}
	if err := validateText("--reason", reason, maxReasonBytes); err != nil {
		return "", err
	}
	return purgeActor(actor)
}

// printPersonalPurge reports what a personal purge dropped: sizes only.
func printPersonalPurge(w io.Writer, subject, actor string, at time.Time, res store.PersonalPurge) error {
	key := "no key"
	if res.Key {
		key = "its key"
	}
	fmt.Fprintf(w, "dropped the personal lanes of %s: %d lanes, %d entries, %d bytes of ciphertext, and %s\n",
		subject, res.Lanes, res.Usage.Entries, res.Usage.Bytes, key)
	fmt.Fprintln(w, "the server cannot decrypt a personal lane: nothing was read, and the subject's machines keep their own files")
	_, err := fmt.Fprintf(w, "recorded in the audit log: %s by %s\n", at.Format(time.RFC3339), actor)
	return err
}
