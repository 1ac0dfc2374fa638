package main

import (
	"context"
	"errors"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/teammemd/teammemd/sync/claude"
	"github.com/teammemd/teammemd/sync/daemon"
	"github.com/teammemd/teammemd/sync/teamindex"
)

const sessionStartLong = `Print context for Claude Code's SessionStart hook. In ~/.claude/settings.json:

For Claude Code's SessionStart hook, in ~/.claude/settings.json:
  {"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"'/abs/teammemd' hook session-start"}]}]}}

It prints, for the session's context, the index of the team notes of the
git checkout the session starts in (the cwd of the hook's JSON input on
stdin, else the working directory): one line per note the team holds, who
changed it and when, and where to write new ones. It reads the team
directory and the sync daemon's state, asks no server, and exits 0 whatever
it finds.`

// hookStdin is where "teammemd hook" reads the hook's input. A terminal
// gives none: a person running it by hand is not waited for.
var hookStdin = func() io.Reader {
	if term.IsTerminal(int(os.Stdin.Fd())) {
		return strings.NewReader("")
	}
	return os.Stdin
}

// newHookCmd prints context for an agent's hooks; each hook is a
// subcommand.
func newHookCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:     "hook",
		Short:   "Print context for Claude Code hooks: hook session-start",
		Long:    "Print context for an AI agent's hooks, one subcommand per hook. teammemd setup claude installs them.",
		Example: "  teammemd hook session-start --config ~/.config/teammemd/config.toml",
	}
	cmd.AddCommand(newSessionStartCmd())
	return cmd
}

// newSessionStartCmd is "teammemd hook session-start".
func newSessionStartCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "session-start",
		Short: "Print the index of the checkout's team notes for Claude Code's SessionStart hook",
		Long:  sessionStartLong,
		Example: `  teammemd hook session-start
  echo '{"cwd":"/home/alice/src/app"}' | teammemd hook session-start --config ~/.config/teammemd/config.toml`,
		Args: noArgs,
	}
	config := cmd.Flags().String("config", "", "config file (default $TEAMMEMD_CONFIG, then ~/.config/teammemd/config.toml)")
	cmd.RunE = body(func(ctx context.Context, _ []string, stdout, _ io.Writer) error {
		return runSessionStart(ctx, config, stdout)
	})
	return cmd
}

// runSessionStart prints the index for the session the hook's input on
// stdin describes.
func runSessionStart(ctx context.Context, config *string, stdout io.Writer) error {
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
