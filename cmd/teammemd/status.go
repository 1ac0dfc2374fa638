package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/teammemd/teammemd/server/api"
	memsync "github.com/teammemd/teammemd/sync"
	"github.com/teammemd/teammemd/sync/daemon"
)

// newStatusCmd is "teammemd status".
func newStatusCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show what the running sync daemon is doing",
		Long: `Show what the running sync daemon is doing, asked on its control socket:
each repo's state, last sync, pending changes, changes still in the
debounce, blocked files and conflicts, and whether Claude Code loads the
team memory. Exits 3 when no daemon answers.`,
		Example: `  teammemd status
  teammemd status --json`,
		Args: noArgs,
	}
	fs := cmd.Flags()
	asJSON := fs.Bool("json", false, "print the status as JSON")
	socket := fs.String("socket", "", "control socket (default "+daemon.SocketPath(runtimeDir())+")")
	claudePath := fs.String("claude", "", "the Claude Code `executable` to check (default: claude on PATH)")
	cmd.RunE = body(func(ctx context.Context, _ []string, stdout, _ io.Writer) error {
		return showStatus(ctx, asJSON, socket, claudePath, stdout)
	})
	return cmd
}

// showStatus prints the status of the daemon on socket.
func showStatus(ctx context.Context, asJSON *bool, socket, claudePath *string, stdout io.Writer) error {
	path := cmp.Or(*socket, daemon.SocketPath(runtimeDir()))
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	st, err := daemon.FetchStatus(ctx, path)
	if errors.Is(err, daemon.ErrNotRunning) {
		if *asJSON {
			fmt.Fprintln(stdout, `{"running":false}`)
		} else {
			fmt.Fprintf(stdout, "teammemd daemon is not running (no answer on %s)\nStart it with: teammemd run\n", path)
		}
		return exitError{code: exitDaemonDown}
	}
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(st)
	}
	if err := printStatus(stdout, st, time.Now()); err != nil {
		return err
	}
	return printAgents(stdout, newAgentChecker(ctx, *claudePath), st.Repos)
}

// printStatus writes the human-readable status. What came from a server
// or a file name is escaped for the terminal (api.Printable).
func printStatus(w io.Writer, st daemon.Status, now time.Time) error {
	var b strings.Builder
	noun := "repos"
	if len(st.Repos) == 1 {
		noun = "repo"
	}
	fmt.Fprintf(&b, "teammemd daemon %s running (pid %d, up %s), %d %s\n",
		st.Version, st.PID, now.Sub(st.Started).Round(time.Second), len(st.Repos), noun)
	printReloadError(&b, st.ReloadError)
	for _, r := range st.Repos {
		printRepo(&b, r, now)
	}
	for _, s := range st.Skipped {
		fmt.Fprintf(&b, "\nskipped %s: %s\n", api.Printable(s.Source), api.Printable(s.Reason))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// printRepo writes one repo's block of the status.
func printRepo(b *strings.Builder, r daemon.RepoStatus, now time.Time) {
	p := api.Printable
	if r.Lane == daemon.LanePersonal {
		fmt.Fprintf(b, "\n%s (personal lane, end-to-end encrypted)\n", p(r.Repo))
	} else {
		fmt.Fprintf(b, "\n%s\n", p(r.Repo))
	}
	fmt.Fprintf(b, "  directory:  %s\n", p(r.Dir))
	fmt.Fprintf(b, "  server:     %s (%s)\n", p(r.Server), reachLine(r, now))
	if r.State != "" {
		fmt.Fprintf(b, "  state:      %s%s\n", p(r.State), causeSuffix(stateHint(r)))
	}
	fmt.Fprintf(b, "  last pull:  %s\n", opLine(r.LastPull, now))
	fmt.Fprintf(b, "  last push:  %s\n", opLine(r.LastPush, now))
	fmt.Fprintf(b, "  pending:    %s\n", listOrNone(r.Pending))
	if len(r.Debouncing) > 0 {
		fmt.Fprintf(b, "  debouncing: %s (changed here; pushed once no file has changed for the debounce)\n", fewOf(r.Debouncing))
	}
	if r.Halted != "" {
		fmt.Fprintf(b, "  stopped:    %s\n", p(r.Halted))
	}
	if r.Missing != "" {
		fmt.Fprintf(b, "  directory missing: %s\n", p(r.Missing))
	}
	if r.Suppressed != "" {
		fmt.Fprintf(b, "  pushes stopped: %s (edit the files, reload the config, or let the repo change on the server to retry)\n", p(r.Suppressed))
	}
	if r.NextRetry != nil {
		fmt.Fprintf(b, "  next retry: %s%s\n", retryWhen(*r.NextRetry, now), causeSuffix(r.RetryCause))
	}
	for _, h := range heldBack(r.Blocked) {
		fmt.Fprintf(b, "  held back:  %s (secret found: %s)\n", p(h.path), strings.Join(h.rules, ", "))
	}
	for _, h := range r.Held {
		fmt.Fprintf(b, "  held back:  %s (%s)\n", p(h.Path), p(h.Reason))
		if h.Reason == memsync.HeldPersonal {
			fmt.Fprintf(b, "              %s\n", personalHint(r.Dir, h.Path))
		}
	}
	if len(r.HeldDeletions) > 0 {
		fmt.Fprintf(b, "  deletions held back: %s%s\n", p(strings.Join(r.HeldDeletions, ", ")), causeSuffix(r.MassDeletion))
	}
	for _, f := range r.Review {
		fmt.Fprintf(b, "  review:     %s: %s\n", p(f.Path), reviewLine(f))
	}
	for _, w := range r.Warnings {
		fmt.Fprintf(b, "  warning:    %s: %s\n", p(w.Path), p(w.Message))
	}
	if n := len(r.Conflict); n > 0 {
		fmt.Fprintf(b, "  conflicts:  %d unresolved (teammemd conflicts lists them; %s settles one)\n", n, resolveCommandOf(r.Lane))
	}
	for _, c := range r.Conflict {
		fmt.Fprintf(b, "  conflict copy: %s\n", p(c))
	}
}

// reachLine says whether the server answers: connected, or unreachable
// since the first request that failed to reach it, with when it last
// answered.
func reachLine(r daemon.RepoStatus, now time.Time) string {
	last := "never reached"
	if r.LastContact != nil {
		last = "last contact " + ago(*r.LastContact, now)
	}
	switch {
	case r.UnreachableSince != nil:
		at := r.UnreachableSince.In(now.Location()).Format(time.TimeOnly)
		return "unreachable since " + at + ", " + ago(*r.UnreachableSince, now) + "; " + last
	case r.Live && r.LastContact != nil:
		return "connected, " + last
	case r.Live:
		return "connected"
	}
	return "not connected"
}

// ago says how long before now t was, to the second.
func ago(t, now time.Time) string { return now.Sub(t).Round(time.Second).String() + " ago" }

// stateHints say what a state means for the user, for the states that
// need more than their name.
var stateHints = map[string]string{
	daemon.StateWrongServer:  "the server URL does not lead to a teammemd server: fix it and reload the config",
	daemon.StateUnauthorized: "the server rejected the token, or your teammemd login ended; see stopped for what to do",
	daemon.StateDenied:       "the token has no access to this repo; see stopped for what to do",
	daemon.StateNoToken:      "the token file gives no token: the repo starts when the token file changes or the config is reloaded",
	daemon.StateLaneStopped:  "the personal lane cannot go on; see stopped for why and what to do",
	daemon.StateMissing:      "the team directory is missing; syncing resumes once it exists again",
	daemon.StateRetrying:     "a pull, push or change wait failed and is retried; see next retry",
	daemon.StateStopped:      "pushes are stopped; see pushes stopped",
	daemon.StateFailed:       "the last pull or push failed; edit a file or reload the config to try again",
	daemon.StatePending:      "changes wait to be pushed",
	daemon.StateDebouncing:   "files changed here wait out the debounce, then are pushed; see debouncing",
	daemon.StateHeld:         "in sync but for what is held back; see held back",
}

// stateHint says what r's state means for the user, "" when its name
// says enough.
func stateHint(r daemon.RepoStatus) string {
	if r.State == daemon.StateConflict {
		return "a conflict copy waits: teammemd conflicts lists it; " + resolveCommandOf(r.Lane) + " settles it"
	}
	return stateHints[r.State]
}

// resolveCommandOf is the command that settles a conflict copy of a repo
// of lane: a personal lane's needs --personal.
func resolveCommandOf(lane string) string {
	if lane == daemon.LanePersonal {
		return "teammemd conflicts resolve KEY --personal --keep local|server|FILE"
	}
	return "teammemd conflicts resolve KEY --keep local|server|FILE"
}

// retryWhen says when a retry is due: "now" once it is.
func retryWhen(at, now time.Time) string {
	if d := at.Sub(now); d > 0 {
		return "in " + d.Round(time.Second).String()
	}
	return "now"
}

func causeSuffix(cause string) string {
	if cause == "" {
		return ""
	}
	return " (" + api.Printable(cause) + ")"
}

// heldFile is one file the scanner held back, with every rule it matched.
type heldFile struct {
	path  string
	rules []string
}

// heldBack groups blocked findings by file, in the order files first
// appear, each rule named once.
func heldBack(blocked []daemon.Blocked) []heldFile {
	var files []heldFile
	index := map[string]int{}
	for _, bl := range blocked {
		i, ok := index[bl.Path]
		if !ok {
			i = len(files)
			index[bl.Path] = i
			files = append(files, heldFile{path: bl.Path})
		}
		if !slices.Contains(files[i].rules, bl.RuleID) {
			files[i].rules = append(files[i].rules, bl.RuleID)
		}
	}
	return files
}

func opLine(op *daemon.OpResult, now time.Time) string {
	if op == nil {
		return "never"
	}
	return fmt.Sprintf("%s ago, %s", now.Sub(op.Time).Round(time.Second), api.Printable(op.Result))
}

func listOrNone(xs []string) string {
	if len(xs) == 0 {
		return "none"
	}
	shown := make([]string, len(xs))
	for i, x := range xs {
		shown[i] = api.Printable(x)
	}
	return strings.Join(shown, ", ")
}

// shownNames is how many names fewOf prints before it counts the rest.
const shownNames = 5

// fewOf names the first few of xs and counts the rest: a save of many
// files at once does not flood the status.
func fewOf(xs []string) string {
	if len(xs) <= shownNames {
		return listOrNone(xs)
	}
	return fmt.Sprintf("%s and %d more", listOrNone(xs[:shownNames]), len(xs)-shownNames)
}

// printReloadError says that the last reload failed, and why.
func printReloadError(b *strings.Builder, reason string) {
	if reason != "" {
		fmt.Fprintf(b, "last reload failed: %s\n  (the running repos were kept; fix the config and reload again)\n", reason)
	}
}

// reviewLine says where a file's change under review stands, and for a
// rejected one what the author may do: the file keeps their change.
func reviewLine(f daemon.ReviewFile) string {
	if f.State != daemon.ReviewRejected {
		return fmt.Sprintf("pending review (proposal %d; teammates get it once a reviewer approves it)", f.Proposal)
	}
	return fmt.Sprintf("rejected: %s (by %s, proposal %d; your file keeps your change: edit it to propose it again, or take the team's copy with teammemd show KEY)",
		api.Printable(f.Reason), api.Printable(f.Reviewer), f.Proposal)
}
