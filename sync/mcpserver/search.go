package mcpserver

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Search limits: the default and the most hits one search returns.
const (
	defaultHits = 10
	maxHits     = 50
)

type searchIn struct {
	Repo  string `json:"repo,omitempty" jsonschema:"repo slug; default: the repo of the client's working directory"`
	Query string `json:"query" jsonschema:"words to look for"`
	Limit int    `json:"limit,omitempty" jsonschema:"most hits to return: default 10, at most 50"`
}

type searchOut struct {
	Repo string `json:"repo"`
	Hits []hit  `json:"hits"`
}

type hit struct {
	Key         string  `json:"key"`
	Name        string  `json:"name,omitempty"`
	Description string  `json:"description,omitempty"`
	Score       float64 `json:"score"`
	Line        int     `json:"line,omitempty" jsonschema:"the snippet's line; absent when only the key, name or description matched"`
	Snippet     string  `json:"snippet,omitempty"`
	SHA256      string  `json:"sha256"`
	URI         string  `json:"uri"`
}

func (t *tools) search(ctx context.Context, req *mcp.CallToolRequest, in searchIn) (*mcp.CallToolResult, searchOut, error) {
	sp, err := t.b.Space(ctx, req, in.Repo)
	if err != nil {
		return nil, searchOut{}, err
	}
	limit := in.Limit
	switch {
	case limit == 0:
		limit = defaultHits
	case limit < 0 || limit > maxHits:
		return nil, searchOut{}, fmt.Errorf("limit %d: want 1 to %d", limit, maxHits)
	}
	out := searchOut{Repo: sp.Repo(), Hits: []hit{}}
	for _, h := range sp.Index().Search(in.Query, limit) {
		out.Hits = append(out.Hits, hit{Key: h.Key, Name: h.Name, Description: h.Description, Score: h.Score,
			Line: h.Line, Snippet: h.Snippet, SHA256: h.Sum, URI: noteURI(sp.Repo(), h.Key)})
	}
	return nil, out, nil
}
