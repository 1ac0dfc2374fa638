package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/servertest"
)

// The server scans the name of every key a PUT writes or deletes, and no
// answer echoes a key whose name holds a secret: such a key is named by its
// redacted form, in a 422 and in a 400 or 413 refused before the scan.
func TestSecretKeysRefusedAndRedacted(t *testing.T) {
	s := servertest.Start(t, servertest.WithScanner(awsKeyScanner{}))
	secret := "AKIA" + "ABCDEFGHIJKLMNOP"
	named := "creds/" + secret + ".md"
	tests := []struct {
		name    string
		body    string
		status  int
		wantKey string
	}{
		{"a value", putBody(t, map[string]string{"z.md": "fine", "leak.md": "key = " + secret}), 422, "leak.md"},
		{"a written key", putBody(t, map[string]string{"clean.md": "fine", named: "fine"}), 422, api.RedactKey(named)},
		{"a deleted key", putBody(t, nil, named), 422, api.RedactKey(named)},
		{"an invalid key", putBody(t, map[string]string{named + "/../x.md": "fine"}), 400, api.RedactKey(named + "/../x.md")},
		{"an entry too large", putBody(t, map[string]string{named: strings.Repeat("x", api.DefaultMaxEntryBytes+1)}), 413, api.RedactKey(named)},
	}
	for _, tt := range tests {
		r := do(t, s.URL, req{method: http.MethodPut, repo: repo, token: s.Token, body: tt.body})
		if r.status != tt.status {
			t.Errorf("PUT %s = %d %s, want %d", tt.name, r.status, r.body, tt.status)
			continue
		}
		if got, _ := r.apiError().Details["key"].(string); got != tt.wantKey {
			t.Errorf("PUT %s: details.key = %q, want %q", tt.name, got, tt.wantKey)
		}
		if strings.Contains(string(r.body), secret[:8]) {
			t.Errorf("PUT %s: the answer %s echoes the secret", tt.name, r.body)
		}
	}
	if got := do(t, s.URL, req{repo: repo, token: s.Token}); got.status != http.StatusNotFound {
		t.Errorf("after the refused PUTs GET = %d, want 404 (nothing stored)", got.status)
	}
}
