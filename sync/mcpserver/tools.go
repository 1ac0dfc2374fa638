package mcpserver

import (
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// tools are the tool handlers, over a backend.
type tools struct {
	srv *mcp.Server
	b   Backend
	now func() time.Time
	// held is the warning a write of a note of type user gets: why the
	// daemon holds it back; "" where such a note is shared, or refused.
	held string
}

// addTools registers every tool on srv, each call run on b's notes; held
// is the warning a note of type user written gets.
func addTools(srv *mcp.Server, b Backend, now func() time.Time, held string) error {
	t := &tools{srv: srv, b: b, now: now, held: held}
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true}
	mcp.AddTool(t.srv, &mcp.Tool{Name: "memory_list", Annotations: readOnly,
		Description: "List the team's notes: key, name and description from the frontmatter, size, age, sha256. " +
			"prefix limits the list to keys that start with it; depth to that many path segments below it (deeper directories are summed up)."},
		t.list)
	mcp.AddTool(t.srv, &mcp.Tool{Name: "memory_read", Annotations: readOnly,
		Description: "Read a note, whole or a line range, with the sha256 of the whole note: pass that sha256 to memory_write or memory_delete."},
		t.read)
	mcp.AddTool(t.srv, &mcp.Tool{Name: "memory_search", Annotations: readOnly,
		Description: "Search the team's notes by words (a word also matches the words it starts), best first, with the line that matches best."},
		t.search)
	mcp.AddTool(t.srv, &mcp.Tool{Name: "memory_write", Annotations: &mcp.ToolAnnotations{IdempotentHint: true, DestructiveHint: ptr(false)},
		Description: "Create or replace a note (a .md or .txt key). To replace one, pass the sha256 memory_read returned; " +
			"without it the note must not exist yet. A note holding a secret is refused. The sync daemon shares it with the team."},
		t.write)
	mcp.AddTool(t.srv, &mcp.Tool{Name: "memory_delete", Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(true)},
		Description: "Delete a note; pass the sha256 of the version read. The sync daemon deletes it for the team."},
		t.remove)
	mcp.AddTool(t.srv, &mcp.Tool{Name: "memory_history", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(true)},
		Description: "List a note's revisions on the team's server, newest first: version, time, author, sha256; with content set, their content too."},
		t.history)
	return t.addMemoryTool()
}

func ptr[T any](v T) *T { return &v }
