package server_test

import (
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/internal/lockedbuf"
	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/servertest"
)

// leakedKey is an AWS access key id in the shape awsKeyScanner flags.
const leakedKey = "AKIAIOSFODNN7EXAMPLE"

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

// TestHistoryClientWithSecretRedacted writes with a User-Agent and a
// machine name that hold a secret: history records each such part as
// redacted, the credential as verified.
func TestHistoryClientWithSecretRedacted(t *testing.T) {
	s := servertest.Start(t, servertest.WithScanner(awsKeyScanner{}))
	tests := []struct {
		agent, machine, want string
	}{
		{"tool/1.0 " + leakedKey, "ann-laptop", " via " + api.ClientRedacted + " on ann-laptop"},
		{"tool/1.0", "box-" + leakedKey, " via tool/1.0 on " + api.ClientRedacted},
		// The key starts within the User-Agent's bound and ends past it.
		{strings.Repeat("u", 90) + " " + leakedKey, "", " via " + api.ClientRedacted},
	}
	for i, tt := range tests {
		r := do(t, s.URL, req{method: http.MethodPut, repo: repo, token: s.Token, body: putBody(t, map[string]string{"a.md": strings.Repeat("a", i+1)}),
			headers: map[string]string{"User-Agent": tt.agent, api.HeaderClient: tt.machine}})
		if r.status != http.StatusOK {
			t.Fatalf("PUT = %d %s, want 200", r.status, r.body)
		}
		rev := repoHistory(t, s, "false")[0]
		if !strings.HasPrefix(rev.Client, "token:") || !strings.HasSuffix(rev.Client, tt.want) || strings.Contains(rev.Client, "AKIA") {
			t.Errorf("client of a write from %q on %q = %q, want the credential then %q", tt.agent, tt.machine, rev.Client, tt.want)
		}
	}
}

// TestSecretSlugRefused writes to a repo whose slug holds a secret: 400,
// nothing stored, and neither the answer nor the access log holds the
// slug; nor does the answer to a slug that is invalid besides.
func TestSecretSlugRefused(t *testing.T) {
	var logs lockedbuf.Buffer
	s := servertest.Start(t, servertest.WithScanner(awsKeyScanner{}), servertest.WithLogger(slog.New(slog.NewJSONHandler(&logs, nil))))
	for _, slug := range []string{"acme/" + leakedKey, leakedKey, "acme/" + leakedKey + "/../x"} {
		r := do(t, s.URL, req{method: http.MethodPut, repo: slug, token: s.Token, body: putBody(t, map[string]string{"a.md": "a"})})
		if r.status != http.StatusBadRequest || r.errorCode() != api.CodeInvalidRequest || strings.Contains(string(r.body), leakedKey) {
			t.Errorf("PUT to %q = %d %s, want 400 %s without the slug", slug, r.status, r.body, api.CodeInvalidRequest)
		}
	}
	if r := do(t, s.URL, req{repo: "acme/" + leakedKey, token: s.Token, query: memQuery("acme/"+leakedKey, "view", "hashes")}); r.status != http.StatusNotFound {
		t.Errorf("GET after the refused PUT = %d %s, want 404: nothing stored", r.status, r.body)
	}
	text := logs.String()
	for _, line := range strings.Split(text, "\n") {
		if strings.Contains(line, `"method":"PUT"`) && strings.Contains(line, leakedKey) {
			t.Errorf("access log line of a refused PUT holds the slug: %s", line)
		}
	}
}
