package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/teammemd/teammemd/scan"
	"github.com/teammemd/teammemd/server/api"
	memsync "github.com/teammemd/teammemd/sync"
	"github.com/teammemd/teammemd/sync/claude"
	"github.com/teammemd/teammemd/sync/credential"
	"github.com/teammemd/teammemd/sync/daemon"
	"github.com/teammemd/teammemd/sync/mcpserver"
)

const mcpLong = `Serves the team memory this machine syncs to an AI agent over the Model
Context Protocol, on stdin and stdout: tools to list, read, search, write
and delete notes and to list a note's revisions on the server, Anthropic's
memory tool on /memories, and a resource per note. For Claude Code,
"teammemd setup claude" registers it for every project; by hand:

  claude mcp add --scope user teammemd -- teammemd mcp

The team directory is the one of the git checkout the client works in (its
roots, else the working directory), or --dir and --repo; a tool may name
another repo this machine syncs. Writes go into the team directory only,
after the secret scan the daemon runs; the daemon pushes them. docs/AGENTS.md
has the tools and the clients' configurations.`

// newMCPCmd is "teammemd mcp".
func newMCPCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve the team memory to AI agents over the Model Context Protocol, on stdio",
		Long:  mcpLong,
		Example: `  claude mcp add --scope user teammemd -- teammemd mcp
  teammemd mcp --dir ~/src/app/team --repo acme/app`,
		Args: noArgs,
	}
	c := repoCommand{}
	c.flags(cmd.Flags())
	cmd.RunE = body(func(ctx context.Context, args []string, _, stderr io.Writer) error {
		if (c.f.dir == "") != (c.f.repo == "") {
			return usageError{errors.New("--dir and --repo go together")}
		}
		opts, err := mcpOptions(c.f, stderr)
		if err != nil {
			return err
		}
		srv, err := mcpserver.New(opts)
		if err != nil {
			return err
		}
		return srv.Run(ctx, &mcp.StdioTransport{})
	})
	return cmd
}

// mcpOptions builds the server's parts from the flags and the config:
// the scanner the daemon runs, and the team directories as the daemon
// syncs them.
func mcpOptions(f syncFlags, stderr io.Writer) (mcpserver.Options, error) {
	cfg, err := loadConfig(f.config)
	if err != nil {
		return mcpserver.Options{}, err
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	sc, err := scan.New(cfg.Scan, scan.WithLogger(log))
	if err != nil {
		return mcpserver.Options{}, fmt.Errorf("load secret scanner: %w", err)
	}
	cwd, err := os.Getwd()
	if err != nil {
		return mcpserver.Options{}, err
	}
	t := mcpTargets{cfg: cfg, client: f.client.resolve(cfg.Client), rule: newTokenRule(f.client, cfg.Client)}
	opts := mcpserver.Options{Discover: t.discover, Known: t.known, Cwd: cwd, Scanner: sc,
		ShareUserNotes: cfg.Client.ShareUserNotes, Logger: log, Version: version}
	if f.dir != "" {
		dir, err := filepath.Abs(f.dir)
		if err != nil {
			return opts, fmt.Errorf("team directory: %w", err)
		}
		if err := api.ValidateSlug(f.repo); err != nil {
			return opts, usageError{err}
		}
		opts.Default = &mcpserver.Target{Repo: f.repo, Dir: dir, History: t.history(t.client.Server, t.client.TokenFile)}
	}
	return opts, nil
}

// mcpTargets finds team directories as "teammemd run" syncs them.
type mcpTargets struct {
	cfg    Config
	client memsync.ClientConfig
	rule   credential.Rule
}

func (t mcpTargets) defaults() daemon.Defaults {
	return daemon.Defaults{Server: t.client.Server, TokenFile: t.client.TokenFile}
}

// discover returns the team directory of the checkout holding dir.
func (t mcpTargets) discover(ctx context.Context, dir string) (mcpserver.Target, error) {
	r, err := claude.DiscoverContext(ctx, dir)
	if err != nil {
		return mcpserver.Target{}, err
	}
	return t.target(daemon.SpecFor(t.cfg.Daemon, t.defaults(), r)), nil
}

// known returns the team directories the daemon's plan syncs.
func (t mcpTargets) known(context.Context) ([]mcpserver.Target, error) {
	plan := daemon.BuildPlan(t.cfg.Daemon, t.defaults())
	out := make([]mcpserver.Target, 0, len(plan.Specs))
	for _, s := range plan.Specs {
		out = append(out, t.target(s))
	}
	return out, nil
}

func (t mcpTargets) target(s daemon.Spec) mcpserver.Target {
	return mcpserver.Target{Repo: s.Repo, Dir: s.Dir, History: t.history(s.Server, s.TokenFile)}
}

// history is the history of a repo on server, with the token the daemon
// uses there; nil without a server. The client is built at the first
// call, which reports why it cannot be.
func (t mcpTargets) history(server, tokenFile string) mcpserver.HistorySource {
	if server == "" {
		return nil
	}
	return &lazyHistory{build: func() (*memsync.Client, error) {
		if err := t.cfg.Client.CheckServer(server); err != nil {
			return nil, err
		}
		ts, err := t.rule.For(server, tokenFile).Source()
		if err != nil {
			return nil, err
		}
		return memsync.NewClient(server, ts, memsync.WithUserAgent("teammemd/"+version))
	}}
}

// lazyHistory builds its client at the first call.
type lazyHistory struct {
	once  sync.Once
	build func() (*memsync.Client, error)
	c     *memsync.Client
	err   error
}

func (l *lazyHistory) HistoryPage(ctx context.Context, repo string, hr memsync.HistoryRequest) (api.HistoryResponse, error) {
	l.once.Do(func() { l.c, l.err = l.build() })
	if l.err != nil {
		return api.HistoryResponse{}, fmt.Errorf("history of %s: %w", repo, l.err)
	}
	resp, err := l.c.HistoryPage(ctx, repo, hr)
	if err != nil {
		return resp, explainSyncError(err)
	}
	return resp, nil
}
