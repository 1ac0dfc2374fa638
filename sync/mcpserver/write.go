package mcpserver

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	memsync "github.com/teammemd/teammemd/sync"
)

type writeIn struct {
	Repo    string `json:"repo,omitempty" jsonschema:"repo slug; default: the repo of the client's working directory"`
	Key     string `json:"key" jsonschema:"the note's path in the team directory: a .md or .txt file, no dot segments"`
	Content string `json:"content" jsonschema:"the whole new content"`
	SHA256  string `json:"sha256,omitempty" jsonschema:"the sha256 memory_read returned for the version replaced; leave it out for a new note"`
}

type writeOut struct {
	Key      string   `json:"key"`
	SHA256   string   `json:"sha256" jsonschema:"of the content written"`
	Created  bool     `json:"created"`
	Warnings []string `json:"warnings,omitempty" jsonschema:"what Claude Code will not read as meant, or why the daemon keeps the note on this machine"`
	URI      string   `json:"uri"`
}

func (t *tools) write(ctx context.Context, req *mcp.CallToolRequest, in writeIn) (*mcp.CallToolResult, writeOut, error) {
	sp, err := t.b.Space(ctx, req, in.Repo)
	if err != nil {
		return nil, writeOut{}, err
	}
	sum, err := sp.Put(ctx, in.Key, []byte(in.Content), in.SHA256)
	if err != nil {
		return nil, writeOut{}, err
	}
	return nil, writeOut{Key: in.Key, SHA256: sum, Created: in.SHA256 == "",
		Warnings: t.warnings(in.Key, []byte(in.Content)), URI: noteURI(sp.Repo(), in.Key)}, nil
}

// warnings are the guards' findings on a note written, and for a note of
// type user why the daemon holds it back, as teammemd lint says it.
func (t *tools) warnings(key string, data []byte) []string {
	c := memsync.CheckNote(key, data)
	if c.Personal && t.held != "" {
		return append(c.Warnings, t.held)
	}
	return c.Warnings
}

type deleteIn struct {
	Repo   string `json:"repo,omitempty" jsonschema:"repo slug; default: the repo of the client's working directory"`
	Key    string `json:"key" jsonschema:"the note's path in the team directory"`
	SHA256 string `json:"sha256" jsonschema:"the sha256 memory_read returned for the version deleted"`
}

type deleteOut struct {
	Key     string `json:"key"`
	Deleted bool   `json:"deleted"`
}

func (t *tools) remove(ctx context.Context, req *mcp.CallToolRequest, in deleteIn) (*mcp.CallToolResult, deleteOut, error) {
	sp, err := t.b.Space(ctx, req, in.Repo)
	if err != nil {
		return nil, deleteOut{}, err
	}
	if err := sp.Delete(ctx, in.Key, in.SHA256); err != nil {
		return nil, deleteOut{}, err
	}
	return nil, deleteOut{Key: in.Key, Deleted: true}, nil
}
