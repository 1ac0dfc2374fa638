package mcpserver

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/sync/memindex"
)

// Backend finds the notes a tool call works on: a team directory on this
// machine (Server), or a repo on the team's server (Remote).
type Backend interface {
	// Space returns the notes of repo, or of the caller's default repo
	// when repo is "".
	Space(ctx context.Context, req *mcp.CallToolRequest, repo string) (Space, error)
}

// Space is the notes of one repo, as the tools read and change them.
type Space interface {
	// Repo is the repo slug; Dir the team directory on this machine, ""
	// on a server.
	Repo() string
	Dir() string
	// Index holds every note, current as of the call that returned the
	// Space.
	Index() *memindex.Index
	// Read returns key's content; an error matching fs.ErrNotExist when
	// there is no such note.
	Read(key string) ([]byte, error)
	// Put writes key's note on the condition that its checksum is ifMatch
	// ("" for a note that must not exist yet): a *memsync.StaleError when
	// it is not. It returns the checksum written.
	Put(ctx context.Context, key string, data []byte, ifMatch string) (string, error)
	// Delete deletes key's note on the same condition.
	Delete(ctx context.Context, key, ifMatch string) error
	// History lists key's revisions on the server, newest first.
	History(ctx context.Context, key string, limit int, content bool) (api.HistoryResponse, error)
}
