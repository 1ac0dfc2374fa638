package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/teammemd/teammemd/server/api"
)

// printProposals writes one line per proposal, oldest first.
func printProposals(w io.Writer, list []api.Proposal) error {
	if len(list) == 0 {
		_, err := fmt.Fprintln(w, "no proposals")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTATE\tAUTHOR\tTIME\tKEYS\tREVIEWER\tREASON")
	p := api.Printable
	for _, prop := range list {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\n", prop.ID, prop.State, p(prop.Subject), prop.Time.UTC().Format(time.RFC3339),
			p(strings.Join(prop.Keys, ", ")), p(cmp.Or(prop.Reviewer, "-")), p(cmp.Or(prop.Reason, "-")))
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("print proposals: %w", err)
	}
	return nil
}

// printProposal writes one proposal: its record, then each key as the
// server holds it and as proposed.
func printProposal(w io.Writer, resp api.ProposalResponse) error {
	prop, p := resp.Proposal, api.Printable
	fmt.Fprintf(w, "proposal %d to %s by %s at %s: %s\n", prop.ID, p(prop.Repo), p(prop.Subject), prop.Time.UTC().Format(time.RFC3339), prop.State)
	if prop.Reviewer != "" {
		fmt.Fprintf(w, "decided by %s at %s%s\n", p(prop.Reviewer), timeOrNone(prop.Decided), reasonSuffix(prop.Reason))
	}
	if prop.Purged != nil {
		fmt.Fprintf(w, "content purged by %s at %s\n", p(prop.PurgedBy), timeOrNone(prop.Purged))
	}
	if len(prop.Conflicts) > 0 {
		fmt.Fprintf(w, "conflict: %s changed on the server since it was proposed; approve an edited version (--edit KEY=FILE) or reject it\n",
			p(strings.Join(prop.Conflicts, ", ")))
	}
	for _, k := range prop.Keys {
		fmt.Fprintf(w, "\n=== %s\n", p(k))
		cur, live := resp.Current[k]
		switch {
		case live:
			fmt.Fprintf(w, "--- on the server now (%d bytes):\n%s\n", len(cur), trimNewline(cur))
		default:
			fmt.Fprintln(w, "--- on the server now: absent")
		}
		val, written := prop.Entries[k]
		switch {
		case written:
			fmt.Fprintf(w, "+++ proposed (%d bytes):\n%s\n", len(val), trimNewline(val))
		case slices.Contains(prop.Deletes, k):
			fmt.Fprintln(w, "+++ proposed: delete it")
		default:
			fmt.Fprintln(w, "+++ proposed: content purged")
		}
	}
	return nil
}

func reasonSuffix(reason string) string {
	if reason == "" {
		return ""
	}
	return ": " + api.Printable(reason)
}

// trimNewline drops one final newline, which the line printing it adds.
func trimNewline(s string) string {
	return strings.TrimSuffix(s, "\n")
}

// printDecision writes what a decision did.
func printDecision(w io.Writer, prop api.Proposal) error {
	var err error
	switch {
	case prop.Purged != nil:
		_, err = fmt.Fprintf(w, "purged the content of proposal %d\n", prop.ID)
	case prop.State == api.ProposalApproved && prop.Version > 0:
		_, err = fmt.Fprintf(w, "approved proposal %d by %s: stored at version %d\n", prop.ID, api.Printable(prop.Subject), prop.Version)
	case prop.State == api.ProposalApproved:
		_, err = fmt.Fprintf(w, "approved proposal %d by %s: the server already held it\n", prop.ID, api.Printable(prop.Subject))
	default:
		_, err = fmt.Fprintf(w, "rejected proposal %d by %s%s\n", prop.ID, api.Printable(prop.Subject), reasonSuffix(prop.Reason))
	}
	return err
}

// printJSONLines writes one JSON object a line.
func printJSONLines[T any](w io.Writer, items []T) error {
	enc := json.NewEncoder(w)
	for _, it := range items {
		if err := enc.Encode(it); err != nil {
			return fmt.Errorf("print JSON: %w", err)
		}
	}
	return nil
}
