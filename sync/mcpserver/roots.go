package mcpserver

import (
	"context"
	"net/url"
	"path/filepath"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The client's roots name its working directories. The feature is
// deprecated by the protocol's 2026-07-28 revision, which forbids the
// request; older clients offer it, and it is how a client says where the
// agent works.

// rootsTimeout bounds the wait for the client's roots.
const rootsTimeout = 5 * time.Second

// rootDirs returns the local directories of the client's roots, none
// when it offers no roots or does not answer.
func rootDirs(ctx context.Context, ss *mcp.ServerSession) []string {
	if ss == nil {
		return nil
	}
	p := ss.InitializeParams()
	//lint:ignore SA1019 roots are how an older client names its working directory
	if p == nil || p.Capabilities == nil || p.Capabilities.RootsV2 == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, rootsTimeout)
	defer cancel()
	//lint:ignore SA1019 roots are how an older client names its working directory
	res, err := ss.ListRoots(ctx, nil)
	if err != nil {
		return nil
	}
	var dirs []string
	for _, r := range res.Roots {
		if u, err := url.Parse(r.URI); err == nil && u.Scheme == "file" && u.Path != "" {
			dirs = append(dirs, filepath.FromSlash(u.Path))
		}
	}
	return dirs
}

// rootsChanged forgets the default team directory when the client's
// roots change, so that the next tool call resolves it again.
func (s *Server) rootsChanged(context.Context, *mcp.RootsListChangedRequest) {
	if s.opts.Default != nil {
		return
	}
	s.resolveMu.Lock()
	s.deflt = nil
	s.resolveMu.Unlock()
}
