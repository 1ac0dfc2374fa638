// Package mcpserver serves the team directories this machine syncs to AI
// agents over the Model Context Protocol, for "teammemd mcp": tools to
// list, read, search, write and delete notes and to list a note's
// revisions on the server; Anthropic's memory tool, command for command,
// on a team directory; and a resource per note, with notifications as
// files change on disk (a teammate's change pulled by the daemon lands as
// one). Writes go into the local team directory only, through
// memsync.Notes: a secret scan first, a checksum precondition, an atomic
// swap. The daemon then pushes them with its usual debounce, scan and
// conflict rules.
//
// The same tools run over a Backend: Server's is the team directories on
// this machine; Remote's, for "teammemd serve" at /mcp, is the repos on
// the team's server that the caller may read, every write through the
// server's own PUT checks.
package mcpserver

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/teammemd/teammemd/server/api"
	memsync "github.com/teammemd/teammemd/sync"
	"github.com/teammemd/teammemd/watch"
)

// Options are the parts a Server uses.
type Options struct {
	// Default, when set, is the team directory tools use when they name no
	// repo (the --dir and --repo flags); else it is discovered from the
	// client's roots, or from Cwd.
	Default *Target
	// Discover returns the team directory of the git checkout holding dir.
	Discover func(ctx context.Context, dir string) (Target, error)
	// Known returns the team directories this machine syncs, for a repo a
	// tool names.
	Known func(ctx context.Context) ([]Target, error)
	// Cwd is the process's working directory, where the team directory is
	// discovered when the client offers no roots.
	Cwd string
	// Scanner checks every write for secrets, as the daemon's push does.
	Scanner memsync.SecretScanner
	// ShareUserNotes is [client] share_user_notes: the daemon pushes notes
	// of type user, so a write of one is not told it is held back.
	ShareUserNotes bool
	// Logger receives the server's log (default: discarded).
	Logger *slog.Logger
	// Version is reported to clients.
	Version string
	// Watch times the watch of each team directory (default: 200 ms of
	// quiet, at most 1 s).
	Watch watch.Options
	// Now returns the current time, for a note's age (default time.Now).
	Now func() time.Time
}

// Target is one team directory.
type Target struct {
	// Repo is the repo slug it syncs with; Dir the directory.
	Repo, Dir string
	// History lists a note's revisions on the server; nil when no server
	// is configured.
	History HistorySource
}

// HistorySource lists revisions on the server: a *memsync.Client.
type HistorySource interface {
	HistoryPage(ctx context.Context, repo string, hr memsync.HistoryRequest) (api.HistoryResponse, error)
}

// maxSpaces bounds how many team directories one server opens.
const maxSpaces = 32

// Server is an MCP server over team directories.
type Server struct {
	opts Options
	log  *slog.Logger
	mcp  *mcp.Server

	mu     sync.Mutex
	ctx    context.Context // Run's, for the watchers; nil before Run
	spaces map[string]*workspace
	wg     sync.WaitGroup

	resolveMu sync.Mutex
	deflt     *workspace // the default team directory, once resolved
}

// New returns a server with every tool registered.
func New(opts Options) (*Server, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Watch.Debounce == 0 {
		opts.Watch.Debounce, opts.Watch.MaxWait = 200*time.Millisecond, time.Second
	}
	opts.Watch.Logger = opts.Logger
	s := &Server{opts: opts, log: opts.Logger, spaces: map[string]*workspace{}}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "teammemd", Version: opts.Version}, &mcp.ServerOptions{
		Instructions:       instructions,
		Logger:             opts.Logger,
		InitializedHandler: s.initialized,
		//lint:ignore SA1019 roots are how an older client names its working directory
		RootsListChangedHandler: s.rootsChanged,
		SubscribeHandler:        func(context.Context, *mcp.SubscribeRequest) error { return nil },
		UnsubscribeHandler:      func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
		Capabilities: &mcp.ServerCapabilities{
			Resources: &mcp.ResourceCapabilities{ListChanged: true, Subscribe: true},
			Tools:     &mcp.ToolCapabilities{},
		},
	})
	held := memsync.HeldPersonal
	if opts.ShareUserNotes {
		held = ""
	}
	if err := addTools(s.mcp, s, opts.Now, held); err != nil {
		return nil, err
	}
	return s, nil
}

// instructions tell the client what the server is for.
const instructions = "The team memory of this repository: Markdown notes shared with teammates by the teammemd daemon. " +
	"Search and read them before work; write what the team should know. Every write needs the sha256 of the version read " +
	"(none for a new note); a note holding a secret is refused."

// Run serves one client over t until it disconnects or ctx is done, then
// stops watching every team directory it opened.
func (s *Server) Run(ctx context.Context, t mcp.Transport) error {
	ctx, cancel := context.WithCancel(ctx)
	defer s.wg.Wait()
	defer cancel()
	s.mu.Lock()
	s.ctx = ctx
	s.mu.Unlock()
	if s.opts.Default != nil {
		if _, err := s.open(*s.opts.Default); err != nil {
			return err
		}
	}
	return s.mcp.Run(ctx, t)
}

// initialized resolves the default team directory as soon as the client
// is ready, so that its notes are listed as resources.
func (s *Server) initialized(_ context.Context, req *mcp.InitializedRequest) {
	s.mu.Lock()
	ctx := s.ctx
	s.mu.Unlock()
	if ctx == nil {
		return
	}
	s.wg.Go(func() {
		ctx, cancel := context.WithTimeout(ctx, resolveTimeout)
		defer cancel()
		if _, err := s.defaultSpace(ctx, req.Session); err != nil && !errors.Is(err, context.Canceled) {
			s.log.Info("no default team directory", "err", err)
		}
	})
}

// resolveTimeout bounds the resolution of the default team directory at
// start.
const resolveTimeout = 30 * time.Second
