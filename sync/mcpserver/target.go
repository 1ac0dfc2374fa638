package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/teammemd/teammemd/server/api"
)

// Space returns the team directory a tool call works on: the repo it
// names, else the default one.
func (s *Server) Space(ctx context.Context, req *mcp.CallToolRequest, repo string) (Space, error) {
	if repo == "" {
		return s.defaultSpace(ctx, req.Session)
	}
	return s.repoSpace(ctx, repo)
}

// defaultSpace returns the default team directory: the one the options
// name, else that of the git checkout of the client's first root that
// has one, else that of the working directory. It is resolved once, and
// again after the client's roots change.
func (s *Server) defaultSpace(ctx context.Context, ss *mcp.ServerSession) (*workspace, error) {
	s.resolveMu.Lock()
	defer s.resolveMu.Unlock()
	if s.deflt != nil {
		return s.deflt, nil
	}
	t, err := s.defaultTarget(ctx, ss)
	if err != nil {
		return nil, err
	}
	ws, err := s.open(t)
	if err != nil {
		return nil, err
	}
	s.deflt = ws
	return ws, nil
}

// defaultTarget finds the default team directory.
func (s *Server) defaultTarget(ctx context.Context, ss *mcp.ServerSession) (Target, error) {
	if s.opts.Default != nil {
		return *s.opts.Default, nil
	}
	if s.opts.Discover == nil {
		return Target{}, errors.New("no team directory: name a repo")
	}
	for _, dir := range rootDirs(ctx, ss) {
		if t, err := s.opts.Discover(ctx, dir); err == nil {
			return t, nil
		}
	}
	t, err := s.opts.Discover(ctx, s.opts.Cwd)
	if err != nil {
		return Target{}, fmt.Errorf("no team directory here: %w; start teammemd mcp in a git checkout, pass --dir and --repo, or name the repo", err)
	}
	return t, nil
}

// repoSpace returns the team directory of repo: one already open, else
// one this machine syncs.
func (s *Server) repoSpace(ctx context.Context, repo string) (*workspace, error) {
	s.mu.Lock()
	for _, ws := range s.spaces {
		if ws.t.Repo == repo {
			s.mu.Unlock()
			return ws, nil
		}
	}
	s.mu.Unlock()
	var known []Target
	if s.opts.Known != nil {
		var err error
		if known, err = s.opts.Known(ctx); err != nil {
			return nil, err
		}
	}
	var names []string
	for _, t := range known {
		if t.Repo == repo {
			return s.open(t)
		}
		names = append(names, t.Repo)
	}
	shown := s.shownRepo(ctx, repo)
	if len(names) == 0 {
		return nil, fmt.Errorf("repo %s: this machine syncs no team directory for it", shown)
	}
	return nil, fmt.Errorf("repo %s: not among the repos this machine syncs: %s", shown, strings.Join(names, ", "))
}

// shownRepo is repo, a slug a tool names, as an answer may name it: as
// is, or redacted (api.RedactKey) when the secret scan finds a secret in
// it read as a key's name, as the server's answers name it, or when the
// scan cannot run.
func (s *Server) shownRepo(ctx context.Context, repo string) string {
	if s.opts.Scanner == nil {
		return repo
	}
	found, err := s.opts.Scanner.Key(ctx, repo)
	if err != nil || len(found) > 0 {
		return api.RedactKey(repo)
	}
	return repo
}
