package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/server/api"
)

// TestRejectionReasonWithSecretRefused rejects a proposal with a reason
// that holds a secret: 422 as a PUT's value with one gets, the secret
// not echoed, and nothing recorded.
func TestRejectionReasonWithSecretRefused(t *testing.T) {
	s := startReviewed(t)
	id := s.propose(t, s.alice, map[string]string{"deploy.md": "port 8080"}).Review.Proposal
	for who, token := range map[string]string{"reviewer": s.carol, "author": s.alice} {
		r := s.decision(t, token, id, "reject", `{"reason":"use `+secretMarker+` instead"}`)
		if e := r.apiError(); r.status != http.StatusUnprocessableEntity || e.Code != api.CodeSecretDetected || e.Details["rule_ids"] == nil {
			t.Errorf("reject by the %s with a secret in the reason = %d %s, want 422 %s with the rule ids", who, r.status, r.body, api.CodeSecretDetected)
		}
		if strings.Contains(string(r.body), secretMarker) {
			t.Errorf("422 body = %s, echoes the secret", r.body)
		}
	}
	if got := s.list(t, s.carol, "&state=all"); len(got) != 1 || got[0].State != api.ProposalPending || got[0].Reason != "" {
		t.Errorf("proposals after the refused rejections = %+v, want the proposal pending, no reason", got)
	}
	if r := s.decision(t, s.carol, id, "reject", `{"reason":"we moved to 9090"}`); r.status != http.StatusOK {
		t.Errorf("reject with a clean reason = %d %s, want 200", r.status, r.body)
	}
}
