package mcpserver

import (
	"context"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	memsync "github.com/teammemd/teammemd/sync"
)

// History limits: the default and the most revisions one call returns.
const (
	defaultRevisions = 20
	maxRevisions     = 100
)

type historyIn struct {
	Repo    string `json:"repo,omitempty" jsonschema:"repo slug; default: the repo of the client's working directory"`
	Key     string `json:"key" jsonschema:"the note's path in the team directory"`
	Limit   int    `json:"limit,omitempty" jsonschema:"most revisions to return, newest first: default 20, at most 100"`
	Content bool   `json:"content,omitempty" jsonschema:"return each revision's content too"`
}

type historyOut struct {
	Key       string     `json:"key"`
	Revisions []revision `json:"revisions"`
	More      bool       `json:"more" jsonschema:"older revisions exist beyond the limit"`
}

type revision struct {
	Version int64     `json:"version"`
	Time    time.Time `json:"time"`
	Author  string    `json:"author" jsonschema:"the token subject that wrote it"`
	SHA256  string    `json:"sha256,omitempty"`
	Deleted bool      `json:"deleted,omitempty"`
	Content *string   `json:"content,omitempty" jsonschema:"absent unless asked for, for a deletion, or when the server no longer keeps it"`
}

func (t *tools) history(ctx context.Context, req *mcp.CallToolRequest, in historyIn) (*mcp.CallToolResult, historyOut, error) {
	sp, err := t.b.Space(ctx, req, in.Repo)
	if err != nil {
		return nil, historyOut{}, err
	}
	if err := memsync.CheckNoteKey(in.Key); err != nil {
		return nil, historyOut{}, err
	}
	limit := in.Limit
	switch {
	case limit == 0:
		limit = defaultRevisions
	case limit < 0 || limit > maxRevisions:
		return nil, historyOut{}, fmt.Errorf("limit %d: want 1 to %d", limit, maxRevisions)
	}
	page, err := sp.History(ctx, in.Key, limit, in.Content)
	if err != nil {
		return nil, historyOut{}, err
	}
	out := historyOut{Key: in.Key, Revisions: []revision{}, More: page.NextCursor != ""}
	for _, r := range page.Revisions {
		out.Revisions = append(out.Revisions, revision{Version: r.Version, Time: r.Time, Author: r.Subject,
			SHA256: r.Checksum, Deleted: r.Deleted, Content: r.Content})
	}
	return nil, out, nil
}
