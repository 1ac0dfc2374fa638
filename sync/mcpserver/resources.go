package mcpserver

import (
	"context"
	"errors"
	"io/fs"
	"net/url"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/teammemd/teammemd/sync/memindex"
)

// uriPrefix starts every note's URI: teammemd://<repo>/~/<key>. A repo
// slug never holds "~", so the first "/~/" ends it.
const uriPrefix = "teammemd://"

// noteURI is the URI of key's note in repo, each key segment escaped.
func noteURI(repo, key string) string {
	segs := strings.Split(key, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return uriPrefix + repo + "/~/" + strings.Join(segs, "/")
}

// mimeType is a note's media type.
func mimeType(key string) string {
	if strings.HasSuffix(key, ".md") {
		return "text/markdown"
	}
	return "text/plain"
}

// announce brings the resources in line with the notes ch changed:
// the list changes with a note added or removed (the SDK says so to the
// client), and a subscriber hears of a note updated.
func (s *Server) announce(ctx context.Context, ws *workspace, ch memindex.Changes) {
	for _, k := range slices.Concat(ch.Added, ch.Changed) {
		if n, _, ok := ws.index.Get(k); ok {
			s.mcp.AddResource(s.resource(ws, n), s.readResource(ws, k))
		}
	}
	for _, k := range ch.Changed {
		s.mcp.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: noteURI(ws.t.Repo, k)})
	}
	if len(ch.Removed) > 0 {
		uris := make([]string, len(ch.Removed))
		for i, k := range ch.Removed {
			uris[i] = noteURI(ws.t.Repo, k)
		}
		s.mcp.RemoveResources(uris...)
	}
}

// resource describes note n of ws.
func (s *Server) resource(ws *workspace, n memindex.Note) *mcp.Resource {
	return &mcp.Resource{
		URI:         noteURI(ws.t.Repo, n.Key),
		Name:        n.Key,
		Title:       n.Name,
		Description: n.Description,
		MIMEType:    mimeType(n.Key),
		Size:        n.Size,
	}
}

// readResource reads key's note from disk.
func (s *Server) readResource(ws *workspace, key string) mcp.ResourceHandler {
	return func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		data, _, err := ws.notes.Read(key)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, mcp.ResourceNotFoundError(req.Params.URI)
		}
		if err != nil {
			return nil, err
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{
			{URI: req.Params.URI, MIMEType: mimeType(key), Text: string(data)},
		}}, nil
	}
}
