package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/teammemd/teammemd/internal/proclab"
	"github.com/teammemd/teammemd/internal/shell"
)

// demoEnv is the environment variable under which a test binary acts as
// teammemd, so the demo can start its own executable as child processes.
const demoEnv = "TEAMMEMD_DEMO_CHILD"

// demoLab runs this executable as the demo's teammemd processes in root,
// echoing each command to out as a user would type it.
func demoLab(out io.Writer, root string) (*proclab.Lab, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find the teammemd executable: %w", err)
	}
	lab, err := proclab.New(root, exe, demoEnv+"=1")
	if err != nil {
		return nil, err
	}
	lab.OnCommand = func(c proclab.Command) { fmt.Fprintln(out, "  $ "+echoLine(c)) }
	return lab, nil
}

// echoLine is the command line a user would type for c: with the teammemd
// variables it sets, the token shown as $TOKEN, and the token a "token
// create" prints captured in that shell variable.
func echoLine(c proclab.Command) string {
	line := shell.Join(append([]string{"teammemd"}, c.Args...)...)
	if c.Output && c.Args[0] == "token" {
		line = "TOKEN=$(" + line + ")"
	}
	var words []string
	for _, e := range c.Env {
		k, v, _ := strings.Cut(e, "=")
		switch {
		case k == "TEAMMEMD_TOKEN":
			words = append(words, k+"=$TOKEN")
		case strings.HasPrefix(k, "TEAMMEMD_"):
			words = append(words, k+"="+shell.Quote(v))
		}
	}
	return strings.Join(append(words, line), " ")
}

// waitFor polls cond every 25 ms until it holds, ctx ends or limit passes.
func waitFor(ctx context.Context, limit time.Duration, what string, cond func() bool) (time.Duration, error) {
	start := time.Now()
	tick := time.NewTicker(25 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Since(start) > limit {
			return 0, fmt.Errorf("%s: nothing after %s", what, limit)
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-tick.C:
		}
	}
	return time.Since(start), nil
}
