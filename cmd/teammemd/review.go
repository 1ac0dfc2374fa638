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

	"github.com/teammemd/teammemd/server/api"
	memsync "github.com/teammemd/teammemd/sync"
)

// runReview lists, shows, approves, rejects and purges the proposals of a
// repo under review.
func runReview(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		reviewUsage(stderr)
		return usageError{errors.New("review: want a subcommand: list, show, approve, reject or purge")}
	}
	if isHelp(args[0]) {
		reviewUsage(stdout)
		return nil
	}
	run, ok := map[string]func(context.Context, []string, io.Writer, io.Writer) error{
		"list": runReviewList, "show": runReviewShow, "approve": runReviewApprove,
		"reject": runReviewReject, "purge": runReviewPurge,
	}[args[0]]
	if !ok {
		reviewUsage(stderr)
		return usageError{fmt.Errorf("review: unknown subcommand %q (want list, show, approve, reject or purge)", args[0])}
	}
	return run(ctx, args[1:], stdout, stderr)
}

// reviewUsage lists the review subcommands.
func reviewUsage(w io.Writer) {
	fmt.Fprintln(w, `usage: teammemd review <subcommand> [flags]

subcommands:
  list      list the repo's proposals: pending ones, or --state approved|rejected|all; --wait D holds until a new one arrives
  show ID   print a proposal: its author, keys, conflicts, and each key as the server holds it and as proposed
  approve ID [--edit KEY=FILE ...]
            land a proposal; with --edit, land your version of KEY (from FILE) instead, against the repo as it is now
  reject ID --reason TEXT
            reject a proposal; its author sees the reason
  purge ID  drop the content of a rejected proposal for good

Every subcommand takes the flags of teammemd history (--dir, --repo, --config, --server, --token-file).
Approving, rejecting and purging take a review grant on the repo; list shows
anyone else only their own proposals.`)
}

// reviewCommand opens the engine of the repo the flags name.
type reviewCommand struct{ repoCommand }

func newReviewCommand(name string) *reviewCommand {
	return &reviewCommand{repoCommand{name: "review " + name}}
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
	if len(pos) != 1 {
		return 0, usageError{fmt.Errorf("review %s takes one proposal id, got %q", name, pos)}
	}
	id, err := strconv.ParseInt(pos[0], 10, 64)
	if err != nil || id <= 0 {
		return 0, usageError{fmt.Errorf("review %s: %q is not a proposal id (teammemd review list shows them)", name, pos[0])}
	}
	return id, nil
}

func runReviewList(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c := newReviewCommand("list")
	fs := c.flags(stderr)
	state := fs.String("state", "pending", "which proposals: pending, approved, rejected or all")
	wait := fs.Duration("wait", 0, "hold until a proposal newer than the ones listed arrives, for at most this `duration` (e.g. 60s)")
	asJSON := fs.Bool("json", false, "print the proposals as JSON lines")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("review list takes no arguments, got %q", fs.Args())}
	}
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
}

func runReviewShow(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c := newReviewCommand("show")
	fs := c.flags(stderr)
	asJSON := fs.Bool("json", false, "print the proposal as JSON")
	pos, err := parseLeading(fs, args)
	if err != nil {
		return err
	}
	id, err := proposalID("show", pos)
	if err != nil {
		return err
	}
	eng, _, err := c.engine(stderr)
	if err != nil {
		return err
	}
	resp, err := eng.Proposal(ctx, id)
	if err != nil {
		return explainSyncError(err)
	}
	if *asJSON {
		return printJSONLines(stdout, []api.ProposalResponse{resp})
	}
	return printProposal(stdout, resp)
}

// editFlags collects --edit KEY=FILE.
type editFlags map[string]string

func (e editFlags) String() string { return "" }

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

func runReviewApprove(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c := newReviewCommand("approve")
	fs := c.flags(stderr)
	edits := editFlags{}
	fs.Var(edits, "edit", "approve your version of `KEY=FILE`: FILE's content replaces the proposal's for KEY (repeatable)")
	pos, err := parseLeading(fs, args)
	if err != nil {
		return err
	}
	id, err := proposalID("approve", pos)
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
	if len(req.Entries) > 0 {
		// The edit is made against the repo as it is now: the checksum
		// chains it, so a change after this read is refused, not undone.
		cur, err := eng.Proposal(ctx, id)
		if err != nil {
			return explainSyncError(err)
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

func runReviewReject(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c := newReviewCommand("reject")
	fs := c.flags(stderr)
	reason := fs.String("reason", "", "why, for the author (required)")
	pos, err := parseLeading(fs, args)
	if err != nil {
		return err
	}
	id, err := proposalID("reject", pos)
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
}

func runReviewPurge(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c := newReviewCommand("purge")
	fs := c.flags(stderr)
	pos, err := parseLeading(fs, args)
	if err != nil {
		return err
	}
	id, err := proposalID("purge", pos)
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
}

// explainReviewError adds what to do next to a refused decision.
func explainReviewError(id int64, err error) error {
	var ae *api.Error
	if !errors.As(err, &ae) {
		return explainSyncError(err)
	}
	switch {
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
