package auth

import (
	"strings"
	"testing"
	"time"
)

func TestTokenSubjectProblem(t *testing.T) {
	for _, tc := range []struct {
		subject string
		want    string // in the error; "" for none
	}{
		{"alice", ""},
		{"ci-bot", ""},
		{"alice@acme.com", ""},
		{"Alice Smith", ""},
		{"githubber", ""},
		{"github:alice", "a GitHub sign-in"},
		{"GitHub:alice", "a GitHub sign-in"},
		{"oidc:alice@acme.com", "an OpenID Connect sign-in"},
		{"oidc:sub:123", "an OpenID Connect sign-in"},
		{"claude:c@acme.com", "a Claude sign-in"},
		{"purge:root", "a purge in the history"},
		{" alice", "starts or ends with a space"},
		{"alice\t", "starts or ends with a space"},
	} {
		err := TokenSubjectProblem(tc.subject)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("TokenSubjectProblem(%q) = %v, want nil", tc.subject, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("TokenSubjectProblem(%q) = %v, want one naming %q", tc.subject, err, tc.want)
		}
		_, _, err = NewTokenRecord(tc.subject, nil, time.Now())
		if (err != nil) != (tc.want != "") {
			t.Errorf("NewTokenRecord(%q) error = %v, want one: %v", tc.subject, err, tc.want != "")
		}
	}
}
