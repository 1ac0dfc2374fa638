package main

import (
	"log/slog"
	"net/http"

	"github.com/teammemd/teammemd/server"
	"github.com/teammemd/teammemd/sync/mcpserver"
)

// serveMCP is the server's /mcp endpoint: the MCP tools over the callers
// the server admits; nil when [server] mcp is off.
func serveMCP(sc server.Config, log *slog.Logger) (http.Handler, error) {
	if !sc.MCPEnabled() {
		return nil, nil
	}
	r, err := mcpserver.NewRemote(mcpserver.RemoteOptions{
		Caller: func(req *http.Request) (mcpserver.Store, bool) {
			return server.CallerFrom(req.Context())
		},
		Logger: log, Version: version,
	})
	if err != nil {
		return nil, err
	}
	return r.Handler(), nil
}
