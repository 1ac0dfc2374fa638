package server_test

import (
	"bytes"
	"fmt"
	"net/http"
	"testing"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/store"
)

// TestProposalHiddenFromOutsiders asks for a proposal, and decides on it,
// with credentials that may not read its repo: each gets the answer an
// unknown id gets, so walking the ids names no repo under review. One
// that may read the repo, but not review it, still gets 403.
func TestProposalHiddenFromOutsiders(t *testing.T) {
	s := startReviewed(t)
	id := s.propose(t, s.alice, map[string]string{"deploy.md": "port 8080"}).Review.Proposal
	const unknown = 999
	outsiders := map[string]string{
		"no grant":                      s.CreateToken(t, "erin"),
		"a review grant on other repos": s.CreateToken(t, "frank", store.Grant{Pattern: "other/**", Level: store.LevelReview}),
	}
	requests := []struct {
		name, method, action, body string
	}{
		{"show", http.MethodGet, "", ""},
		{"approve", http.MethodPost, "/approve", ""},
		{"reject", http.MethodPost, "/reject", `{"reason":"no"}`},
		{"purge", http.MethodPost, "/purge", ""},
	}
	for who, token := range outsiders {
		for _, rq := range requests {
			ask := func(id int64) reply {
				return do(t, s.URL, req{method: rq.method, path: fmt.Sprintf("%s/%d%s", api.ProposalsPath, id, rq.action), token: token, body: rq.body})
			}
			hidden, none := ask(id), ask(unknown)
			if none.status != http.StatusNotFound || none.errorCode() != api.CodeProposalNotFound {
				t.Fatalf("%s of an unknown id by %s = %d %s, want 404 %s", rq.name, who, none.status, none.body, api.CodeProposalNotFound)
			}
			if hidden.status != none.status || !bytes.Equal(hidden.body, none.body) {
				t.Errorf("%s of proposal %d by %s = %d %s, want the unknown id's %d %s", rq.name, id, who, hidden.status, hidden.body, none.status, none.body)
			}
		}
	}
	for _, rq := range requests {
		r := do(t, s.URL, req{method: rq.method, path: fmt.Sprintf("%s/%d%s", api.ProposalsPath, id, rq.action), token: s.dave, body: rq.body})
		if r.status != http.StatusForbidden || r.errorCode() != api.CodeACLDenied {
			t.Errorf("%s by a reader of the repo = %d %s, want 403 %s", rq.name, r.status, r.body, api.CodeACLDenied)
		}
	}
	if r := s.decision(t, s.alice, id, "reject", `{"reason":"withdrawn"}`); r.status != http.StatusOK {
		t.Errorf("author's withdrawal = %d %s, want 200", r.status, r.body)
	}
}
