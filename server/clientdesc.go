package server

import (
	"context"
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
// access by them. A claimed part in which the secret scan finds a secret
// (in the whole header, not only in what is recorded of it) is recorded
// as api.ClientRedacted.
func (s *Server) writeClient(ctx context.Context, p auth.Principal, h http.Header) string {
	agent, machine := h.Get("User-Agent"), h.Get(api.HeaderClient)
	if s.claimHoldsSecret(ctx, agent+"\n"+machine) {
		agentHolds, machineHolds := s.claimHoldsSecret(ctx, agent), s.claimHoldsSecret(ctx, machine)
		if agentHolds || !machineHolds {
			agent = api.ClientRedacted
		}
		if machineHolds || !agentHolds {
			machine = api.ClientRedacted
		}
	}
	return api.DescribeClient(credential(p), agent, machine)
}

// claimHoldsSecret reports whether the secret scan finds a secret in
// text, what a client claims, cleaned as a client description is; true
// when the scan cannot run. The text of a daemon's every request is the
// same, so its scan after the first is the scanner's cache lookup.
func (s *Server) claimHoldsSecret(ctx context.Context, text string) bool {
	rules, err := s.textRules(ctx, api.CleanClientText(text, len(text)))
	return err != nil || len(rules) > 0
}

// credential names what vouched for p: "token:" and the API token's ID, or
// the auth mode.
func credential(p auth.Principal) string {
	if p.Mode == auth.ModeToken && p.TokenID != "" {
		return "token:" + p.TokenID
	}
	return p.Mode
}
