package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
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
	exe, err := demoBinary(root)
	if err != nil {
		return nil, err
	}
	lab, err := proclab.New(root, exe, demoEnv+"=1")
	if err != nil {
		return nil, err
	}
	lab.OnCommand = func(c proclab.Command) { fmt.Fprintln(out, "  $ "+echoLine(c)) }
	return lab, nil
}

// demoBinary copies this executable to root/bin/teammemd and returns the
// copy's path. The demo's processes run the copy: the teammates' Claude
// Code settings name the binary that set them up, which must outlive the
// temporary build "go run" deletes (setup refuses one), and the copy lives
// as long as those settings do.
func demoBinary(root string) (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find the teammemd executable: %w", err)
	}
	src, err := os.Open(exe)
	if err != nil {
		return "", fmt.Errorf("read the teammemd executable: %w", err)
	}
	defer src.Close()
	bin := filepath.Join(root, "bin", "teammemd")
	if err := os.MkdirAll(filepath.Dir(bin), 0o700); err != nil {
		return "", fmt.Errorf("create the demo's bin directory: %w", err)
	}
	dst, err := os.OpenFile(bin, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o700)
	if err != nil {
		return "", fmt.Errorf("copy the teammemd executable: %w", err)
	}
	_, err = io.Copy(dst, src)
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", fmt.Errorf("copy the teammemd executable to %s: %w", bin, err)
	}
	return bin, nil
}

// echoLine is the command line a user would type for c: with the
// variables it sets that matter to it (HOME, teammemd's), a token shown as
// $TOKEN (the one a daemon runs with) or $<SUBJECT>_TOKEN (the one "token
// create" prints, captured in that shell variable), and its input piped
// in.
func echoLine(c proclab.Command) string {
	program := cmp.Or(c.Program, "teammemd")
	line := shell.Join(append([]string{program}, c.Args...)...)
	if program == "teammemd" && c.Output && c.Args[0] == "token" {
		line = tokenVar(flagValue(c.Args, "--subject")) + "=$(" + line + ")"
	}
	var words []string
	if c.Input != "" {
		words = append(words, c.Input, "|")
	}
	for _, e := range c.Env {
		k, v, _ := strings.Cut(e, "=")
		switch {
		case v == "":
		case k == "TEAMMEMD_TOKEN":
			words = append(words, k+"=$TOKEN")
		case k == "HOME" || strings.HasPrefix(k, "TEAMMEMD_"):
			words = append(words, k+"="+shell.Quote(v))
		}
	}
	return strings.Join(append(words, line), " ")
}

// tokenVar is the shell variable the demo keeps subject's token in:
// ALICE_TOKEN for alice, TOKEN for none.
func tokenVar(subject string) string {
	if subject == "" {
		return "TOKEN"
	}
	return strings.ToUpper(subject) + "_TOKEN"
}

// flagValue is the word after name in args, or "".
func flagValue(args []string, name string) string {
	if i := slices.Index(args, name); i >= 0 && i+1 < len(args) {
		return args[i+1]
	}
	return ""
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
