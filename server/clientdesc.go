package server

import (
	"net/http"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/auth"
)

// webViewAgent stands for the client in the description of a write made
// in the web view.
const webViewAgent = "teammemd web view"

// writeClient describes for history the credential and the client that
// made a request: the credential as the server verified it, then the
// User-Agent and Teammemd-Client headers as the client sent them. Those
// are the client's claim, recorded for people to read; nothing decides
// access by them.
func writeClient(p auth.Principal, h http.Header) string {
	return api.DescribeClient(credential(p), h.Get("User-Agent"), h.Get(api.HeaderClient))
}

// credential names what vouched for p: "token:" and the API token's ID, or
// the auth mode.
func credential(p auth.Principal) string {
	if p.Mode == auth.ModeToken && p.TokenID != "" {
		return "token:" + p.TokenID
	}
	return p.Mode
}
