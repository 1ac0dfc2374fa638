package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"

	"github.com/teammemd/teammemd/sync/claude"
	"github.com/teammemd/teammemd/sync/daemon"
	"github.com/teammemd/teammemd/sync/teamindex"
)

const hookUsage = `usage: teammemd hook session-start [--config FILE]

For Claude Code's SessionStart hook, in ~/.claude/settings.json:
  {"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"'/abs/teammemd' hook session-start"}]}]}}

It prints, for the session's context, the index of the team notes of the
git checkout the session starts in (the cwd of the hook's JSON input on
stdin, else the working directory): one line per note the team holds, who
changed it and when, and where to write new ones. It reads the team
directory and the sync daemon's state, asks no server, and exits 0 whatever
it finds.
`

// hookStdin is where "teammemd hook" reads the hook's input. A terminal
// gives none: a person running it by hand is not waited for.
var hookStdin = func() io.Reader {
	if term.IsTerminal(int(os.Stdin.Fd())) {
		return strings.NewReader("")
	}
	return os.Stdin
}

func runHook(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || isHelp(args[0]) {
		fmt.Fprint(stdout, hookUsage)
		if len(args) == 0 {
			return usageError{errors.New("hook needs a subcommand: session-start")}
		}
		return nil
	}
	if args[0] != "session-start" {
		fmt.Fprint(stderr, hookUsage)
		return usageError{fmt.Errorf("unknown hook %q", args[0])}
	}
	fs := newFlagSet("hook session-start", stderr)
	config := fs.String("config", "", "config file (default $TEAMMEMD_CONFIG, then ~/.config/teammemd/config.toml)")
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("hook session-start takes no arguments, got %q", fs.Args())}
	}
	teamindex.SessionStart(ctx, hookStdin(), stdout, teamindex.Options{Locate: hookSource(*config)})
	return nil
}

// hookSource finds what the index of a checkout is built from as "teammemd
// run" would sync it: the config at path, the [client] settings over the
// environment, and the repo the daemon runs for the checkout's team
// directory.
func hookSource(path string) func(claude.Repo) (teamindex.Source, error) {
	return func(r claude.Repo) (teamindex.Source, error) {
		cfg, err := loadConfig(path)
		if err != nil {
			return teamindex.Source{}, err
		}
		client := clientFlags{}.resolve(cfg.Client)
		spec := daemon.SpecFor(cfg.Daemon, daemon.Defaults{Server: client.Server, TokenFile: client.TokenFile}, r)
		if spec.Server == "" {
			return teamindex.Source{}, errors.New("no server configured (teammemd doctor says how to set one)")
		}
		return teamindex.Source{Dir: spec.Dir, Repo: spec.Repo, Server: spec.Server, StateDir: client.StateDir}, nil
	}
}
