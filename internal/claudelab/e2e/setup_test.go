package e2e

import (
	"context"
	"fmt"
	"strings"

	"github.com/teammemd/teammemd/internal/proclab"
	"github.com/teammemd/teammemd/internal/shell"
)

// route is how a client learns of the team notes: the SessionStart hook,
// or the memory stores the client reads itself (with the hook beside
// them).
type route string

const (
	hookRoute   route = "hook"
	storesRoute route = "stores"
)

// setUp configures the user with "teammemd setup claude" on the route,
// the client's own traffic off, and returns the arguments of the teammemd
// run line setup prints for the user to start the daemon with, as it does
// where no service manager answers (none does in the test's namespace).
func (u *user) setUp(ctx context.Context, lab *proclab.Lab, server, token string, r route) ([]string, error) {
	out, err := lab.Run(ctx, u.shellEnv(), strings.NewReader(token), "setup", "claude",
		"--server", server, "--token-stdin", "--checkout", u.checkout, "--route", string(r),
		"--disable-client-traffic", "--claude", u.claude)
	if err != nil {
		return nil, err
	}
	args, err := runLine(out, lab.Bin)
	if err != nil {
		return nil, fmt.Errorf("%w; setup printed:\n%s", err, out)
	}
	return args, nil
}

// runLine finds the line of out that runs bin with "run" and returns its
// arguments after bin.
func runLine(out, bin string) ([]string, error) {
	for line := range strings.Lines(out) {
		words, err := shell.Split(strings.TrimSpace(line))
		if err != nil || len(words) < 2 || words[1] != "run" {
			continue
		}
		if words[0] != bin {
			return nil, fmt.Errorf("setup says to start %s, not the teammemd it is (%s)", words[0], bin)
		}
		return words[1:], nil
	}
	return nil, fmt.Errorf("setup printed no line that starts %s run", bin)
}
