package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/teammemd/teammemd/server/api"
	memsync "github.com/teammemd/teammemd/sync"
)

// newReviewCmd is "teammemd review": the proposals of a repo under review.
func newReviewCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "review",
		Short: "List, show, approve or reject the proposals of a repo under review",
		Long: `On a repo under review ([[server.repo]] review = "required" on the server),
a write becomes a proposal that teammates get only once a reviewer approves
it. Every subcommand takes the flags of teammemd history (--dir, --repo,
--config, --server, --token-file). Approving, rejecting and purging take a
review grant on the repo; list shows anyone else only their own proposals.`,
		Example: `  teammemd review list
  teammemd review show 7
  teammemd review approve 7
  teammemd review approve 7 --edit notes/deploy.md=./deploy.md
  teammemd review reject 8 --reason "the staging host moved; see notes/hosts.md"`,
	}
	cmd.AddCommand(newReviewListCmd(), newReviewShowCmd(), newReviewApproveCmd(),
		newReviewRejectCmd(), newReviewPurgeCmd())
	return cmd
}

// maxProposalWait is the longest one wait for proposals asks the server
// for; a server holds it at most its max_wait (60 s by default).
const maxProposalWait = time.Minute

// awaitProposal waits, one server wait after another, until a proposal
// newer than those of list arrives or wait passes, and returns the list
// then.
func awaitProposal(ctx context.Context, eng *memsync.Engine, state string, list []api.Proposal, wait time.Duration) ([]api.Proposal, error) {
	q := memsync.ProposalQuery{State: state}
	if len(list) > 0 {
		q.After = list[len(list)-1].ID
	}
	deadline := time.Now().Add(wait)
	for {
		left := time.Until(deadline)
		if left < time.Second {
			return list, nil
		}
		q.Wait = min(left, maxProposalWait)
		next, err := eng.Proposals(ctx, q)
		if err != nil {
			return nil, err
		}
		if list = next; len(next) > 0 && next[len(next)-1].ID > q.After {
			return list, nil
		}
	}
}

// proposalID parses the one positional argument, a proposal id.
func proposalID(name string, pos []string) (int64, error) {
	id, err := strconv.ParseInt(pos[0], 10, 64)
	if err != nil || id <= 0 {
		return 0, usageError{fmt.Errorf("review %s: %q is not a proposal id (teammemd review list shows them)", name, pos[0])}
	}
	return id, nil
}

func newReviewListCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the repo's proposals: pending ones, or --state approved|rejected|all",
		Example: `  teammemd review list
  teammemd review list --state all --json
  teammemd review list --wait 60s`,
		Args: noArgs,
	}
	c := repoCommand{}
	fs := c.flags(cmd.Flags())
	state := fs.String("state", "pending", "which proposals: pending, approved, rejected or all")
	wait := fs.Duration("wait", 0, "hold until a proposal newer than the ones listed arrives, for at most this `duration` (e.g. 60s)")
	asJSON := fs.Bool("json", false, "print the proposals as JSON lines")
	cmd.RunE = body(func(ctx context.Context, _ []string, stdout, stderr io.Writer) error {
		switch *state {
		case "pending", "approved", "rejected", "all":
		default:
			return usageError{fmt.Errorf("--state %q: want pending, approved, rejected or all", *state)}
		}
		eng, _, err := c.engine(stderr)
		if err != nil {
			return err
		}
		list, err := eng.Proposals(ctx, memsync.ProposalQuery{State: *state})
		if err == nil && *wait > 0 {
			list, err = awaitProposal(ctx, eng, *state, list, *wait)
		}
		if err != nil {
			return explainSyncError(err)
		}
		if *asJSON {
			return printJSONLines(stdout, list)
		}
		return printProposals(stdout, list)
	})
	return cmd
}

func newReviewShowCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:     "show ID",
		Short:   "Print a proposal: its author, keys, conflicts, and each key as the server holds it and as proposed",
		Example: "  teammemd review show 7\n  teammemd review show 7 --json",
		Args:    wantArgs(1, 1, "one proposal ID"),
	}
	c := repoCommand{}
	fs := c.flags(cmd.Flags())
	asJSON := fs.Bool("json", false, "print the proposal as JSON")
	cmd.RunE = body(func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
		id, err := proposalID("show", args)
		if err != nil {
			return err
		}
		eng, _, err := c.engine(stderr)
		if err != nil {
			return err
		}
		resp, err := eng.Proposal(ctx, id)
		if err != nil {
			return explainReviewError(id, err)
		}
		if *asJSON {
			return printJSONLines(stdout, []api.ProposalResponse{resp})
		}
		return printProposal(stdout, resp)
	})
	return cmd
}

// editFlags collects --edit KEY=FILE.
type editFlags map[string]string

func (e editFlags) String() string { return "" }

func (e editFlags) Type() string { return "KEY=FILE" }

func (e editFlags) Set(v string) error {
	key, file, ok := strings.Cut(v, "=")
	if !ok || key == "" || file == "" {
		return fmt.Errorf("want KEY=FILE, got %q", v)
	}
	if _, dup := e[key]; dup {
		return fmt.Errorf("%s is edited twice", key)
	}
	e[key] = file
	return nil
}

func newReviewApproveCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "approve ID",
		Short: "Land a proposal, or with --edit your version of a key, against the repo as it is now",
		Example: `  teammemd review approve 7
  teammemd review approve 7 --edit notes/deploy.md=./deploy.md`,
		Args: wantArgs(1, 1, "one proposal ID"),
	}
	c := repoCommand{}
	fs := c.flags(cmd.Flags())
	edits := editFlags{}
	fs.Var(edits, "edit", "approve your version of `KEY=FILE`: FILE's content replaces the proposal's for KEY (repeatable)")
	cmd.RunE = body(func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
		id, err := proposalID("approve", args)
		if err != nil {
			return err
		}
		req, err := readEdits(edits)
		if err != nil {
			return usageError{err}
		}
		eng, _, err := c.engine(stderr)
		if err != nil {
			return err
		}
		return approve(ctx, eng, id, req, stdout)
	})
	return cmd
}

// approve lands proposal id, or the edits of req against the repo as it is now.
func approve(ctx context.Context, eng *memsync.Engine, id int64, req api.ApproveRequest, stdout io.Writer) error {
	if len(req.Entries) > 0 {
		// The edit is made against the repo as it is now: the checksum
		// chains it, so a change after this read is refused, not undone.
		cur, err := eng.Proposal(ctx, id)
		if err != nil {
			return explainReviewError(id, err)
		}
		req.IfMatch = cur.Checksum
	}
	resp, err := eng.Approve(ctx, id, req)
	if err != nil {
		return explainReviewError(id, err)
	}
	return printDecision(stdout, resp.Proposal)
}

// readEdits reads each --edit file.
func readEdits(edits editFlags) (api.ApproveRequest, error) {
	var req api.ApproveRequest
	for key, file := range edits {
		b, err := os.ReadFile(file)
		if err != nil {
			return req, fmt.Errorf("--edit %s: %w", key, err)
		}
		if req.Entries == nil {
			req.Entries = map[string]string{}
		}
		req.Entries[key] = string(b)
	}
	return req, nil
}

func newReviewRejectCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:     "reject ID --reason TEXT",
		Short:   "Reject a proposal; its author sees the reason",
		Example: `  teammemd review reject 8 --reason "the staging host moved; see notes/hosts.md"`,
		Args:    wantArgs(1, 1, "one proposal ID"),
	}
	c := repoCommand{}
	fs := c.flags(cmd.Flags())
	reason := fs.String("reason", "", "why, for the author (required)")
	cmd.RunE = body(func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
		id, err := proposalID("reject", args)
		if err != nil {
			return err
		}
		if strings.TrimSpace(*reason) == "" {
			return usageError{errors.New("review reject: --reason is required: the author sees it")}
		}
		eng, _, err := c.engine(stderr)
		if err != nil {
			return err
		}
		resp, err := eng.Reject(ctx, id, *reason)
		if err != nil {
			return explainReviewError(id, err)
		}
		return printDecision(stdout, resp.Proposal)
	})
	return cmd
}

func newReviewPurgeCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:     "purge ID",
		Short:   "Drop the content of a rejected proposal for good",
		Example: "  teammemd review purge 8",
		Args:    wantArgs(1, 1, "one proposal ID"),
	}
	c := repoCommand{}
	c.flags(cmd.Flags())
	cmd.RunE = body(func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
		id, err := proposalID("purge", args)
		if err != nil {
			return err
		}
		eng, _, err := c.engine(stderr)
		if err != nil {
			return err
		}
		resp, err := eng.PurgeProposal(ctx, id)
		if err != nil {
			return explainReviewError(id, err)
		}
		return printDecision(stdout, resp.Proposal)
	})
	return cmd
}

// explainReviewError adds what to do next to a refused request about
// proposal id.
func explainReviewError(id int64, err error) error {
	var ae *api.Error
	if !errors.As(err, &ae) {
		return explainSyncError(err)
	}
	switch {
	case ae.Code == api.CodeProposalNotFound:
		return fmt.Errorf("%w (teammemd review list shows them)", err)
	case ae.Code == api.CodeProposalConflict:
		return fmt.Errorf("%w\nsee both sides with: teammemd review show %d; then reject it, or approve your version: teammemd review approve %d --edit KEY=FILE", err, id, id)
	case ae.Status == 412:
		return fmt.Errorf("%w\nthe repo changed while you approved: look again with teammemd review show %d", err, id)
	}
	return explainSyncError(err)
}

// timeOrNone prints t, or "-" for none.
func timeOrNone(t *time.Time) string {
	if t == nil || t.IsZero() {
		return "-"
	}
	return t.UTC().Format(time.RFC3339)
}
