package server_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/servertest"
)

// TestIfMatchForms sends a PUT with each form of If-Match: a header that
// is present is compared (412 unless one of its tags is the repo's
// checksum, compared strongly), only an absent one, or *, is no
// precondition.
func TestIfMatchForms(t *testing.T) {
	s := servertest.Start(t)
	const current = "<current>" // stands for the repo's checksum
	tests := []struct {
		name    string
		ifMatch *string // nil: no header
		fresh   bool    // on a repo never written
		want    int
	}{
		{"absent", nil, false, http.StatusOK},
		{"absent, never written", nil, true, http.StatusOK},
		{"current", ptr(`"` + current + `"`), false, http.StatusOK},
		{"current, unquoted", ptr(current), false, http.StatusOK},
		{"star", ptr(`*`), false, http.StatusOK},
		{"star, never written", ptr(`*`), true, http.StatusOK},
		{"empty tag", ptr(`""`), false, http.StatusPreconditionFailed},
		{"empty tag, never written", ptr(`""`), true, http.StatusPreconditionFailed},
		{"weak empty tag", ptr(`W/""`), false, http.StatusPreconditionFailed},
		{"weak current", ptr(`W/"` + current + `"`), false, http.StatusPreconditionFailed},
		{"empty value", ptr(``), false, http.StatusPreconditionFailed},
		{"empty tag first", ptr(`"", "sha256:00"`), false, http.StatusPreconditionFailed},
		{"empty tag, then current", ptr(`"", "` + current + `"`), false, http.StatusOK},
		{"stale, then current", ptr(`"sha256:00", "` + current + `"`), false, http.StatusOK},
		{"current, then stale", ptr(`"` + current + `" , "sha256:00"`), false, http.StatusOK},
		{"stale, then weak current", ptr(`"sha256:00", W/"` + current + `"`), false, http.StatusPreconditionFailed},
		{"empty repo's checksum, never written", ptr(api.ETag(api.EmptyRepoChecksum)), true, http.StatusOK},
	}
	for i, tt := range tests {
		name := fmt.Sprintf("acme/app%d", i)
		sum := api.EmptyRepoChecksum
		if !tt.fresh {
			sum = put(t, s, name, map[string]string{"a.md": "a"}).Checksum
		}
		headers := map[string]string{}
		if tt.ifMatch != nil {
			headers["If-Match"] = strings.ReplaceAll(*tt.ifMatch, current, sum)
		}
		r := do(t, s.URL, req{method: http.MethodPut, repo: name, token: s.Token, body: putBody(t, map[string]string{"b.md": "b"}), headers: headers})
		if r.status != tt.want {
			t.Errorf("%s: PUT with If-Match %q = %d %s, want %d", tt.name, headers["If-Match"], r.status, r.body, tt.want)
		}
		if tt.want == http.StatusPreconditionFailed && r.errorCode() != api.CodePrecondition {
			t.Errorf("%s: PUT error code = %q, want %q", tt.name, r.errorCode(), api.CodePrecondition)
		}
	}
}

func ptr(s string) *string { return &s }
