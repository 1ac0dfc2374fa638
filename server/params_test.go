package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/servertest"
	"github.com/teammemd/teammemd/server/store"
)

// TestRepeatedParamsRefused gives each parameter that takes one value
// twice: 400 invalid_request naming it, never the first value taken.
func TestRepeatedParamsRefused(t *testing.T) {
	s := servertest.Start(t)
	put(t, s, repo, map[string]string{"a.md": "a"})
	alice := s.CreateToken(t, "alice")
	const lane = "0123456789abcdef0123456789abcdef"
	tests := []struct {
		param, method, path, query string
		token                      string
		headers                    map[string]string
	}{
		{"repo", http.MethodGet, api.Path, "repo=acme%2Fapp&repo=other%2Fapp", s.Token, nil},
		{"repo", http.MethodPut, api.Path, "repo=acme%2Fapp&repo=other%2Fapp", s.Token, nil},
		{"view", http.MethodGet, api.Path, memQuery(repo, "view", "hashes", "view", "hashes"), s.Token, nil},
		{"wait", http.MethodGet, api.Path, memQuery(repo, "view", "hashes", "wait", "1", "wait", "2"), s.Token, nil},
		{"repo", http.MethodGet, api.HistoryPath, "repo=acme%2Fapp&repo=other%2Fapp", s.Token, nil},
		{"key", http.MethodGet, api.HistoryPath, memQuery(repo, "key", "a.md", "key", "b.md"), s.Token, nil},
		{"cursor", http.MethodGet, api.HistoryPath, memQuery(repo, "cursor", "5", "cursor", "2"), s.Token, nil},
		{"limit", http.MethodGet, api.HistoryPath, memQuery(repo, "limit", "5", "limit", "2"), s.Token, nil},
		{"repo", http.MethodGet, api.ProposalsPath, "repo=acme%2Fapp&repo=other%2Fapp", s.Token, nil},
		{"state", http.MethodGet, api.ProposalsPath, memQuery(repo, "state", "all", "state", "pending"), s.Token, nil},
		{"after", http.MethodGet, api.ProposalsPath, memQuery(repo, "wait", "1", "after", "1", "after", "2"), s.Token, nil},
		{"lane", http.MethodGet, api.PersonalPath, "lane=" + lane + "&lane=" + strings.Repeat("f", 32), alice,
			map[string]string{api.PersonalKeyHeader: lane}},
	}
	for _, tt := range tests {
		r := do(t, s.URL, req{method: tt.method, path: tt.path, query: tt.query, token: tt.token, headers: tt.headers,
			body: map[bool]string{true: putBody(t, map[string]string{"b.md": "b"})}[tt.method == http.MethodPut]})
		if e := r.apiError(); r.status != http.StatusBadRequest || e.Code != api.CodeInvalidRequest || !strings.Contains(e.Message, tt.param) {
			t.Errorf("%s %s?%s = %d %s, want 400 %s naming %s", tt.method, tt.path, tt.query, r.status, r.body, api.CodeInvalidRequest, tt.param)
		}
	}
	if h := getHashes(t, s, repo); h.Version != 1 {
		t.Errorf("after the refused PUT: version %d, want 1 (nothing written)", h.Version)
	}
}

// TestEmptyInstanceRefused sends an empty Teammemd-Instance with every
// request of the team memory route: 400, as for any malformed one.
func TestEmptyInstanceRefused(t *testing.T) {
	s := servertest.Start(t)
	first := put(t, s, repo, map[string]string{"a.md": "a"})
	for _, q := range []string{memQuery(repo), memQuery(repo, "only", "a.md"), memQuery(repo, "view", "hashes"),
		memQuery(repo, "view", "hashes", "wait", "5")} {
		r := do(t, s.URL, req{query: q, token: s.Token, headers: map[string]string{api.HeaderInstance: "", "If-None-Match": api.ETag(first.Checksum)}})
		if r.status != http.StatusBadRequest || r.errorCode() != api.CodeInvalidRequest {
			t.Errorf("GET ?%s with an empty %s = %d %s, want 400 %s", q, api.HeaderInstance, r.status, r.body, api.CodeInvalidRequest)
		}
	}
}

// TestGetFormBeforeAccess sends malformed GETs with a token that may not
// read the repo: the form is checked first (PROTOCOL.md section 4), so
// each is 400, as for a reader.
func TestGetFormBeforeAccess(t *testing.T) {
	s := servertest.Start(t)
	put(t, s, repo, map[string]string{"a.md": "a"})
	other := s.CreateToken(t, "other", store.Grant{Pattern: "other/*", Level: store.LevelRead})
	tests := []struct {
		name, query string
		headers     map[string]string
	}{
		{"only with view", memQuery(repo, "view", "hashes", "only", "a.md"), nil},
		{"only of a bad key", memQuery(repo, "only", "../a.md"), nil},
		{"at without only", memQuery(repo, "at", "sha256:00"), nil},
		{"at twice", memQuery(repo, "only", "a.md", "at", "sha256:00", "at", "sha256:00"), nil},
		{"delta without wait", memQuery(repo, "view", "hashes", "delta", "1"), nil},
		{"delta of 2", memQuery(repo, "view", "hashes", "wait", "5", "delta", "2"), nil},
		{"bad instance", memQuery(repo, "view", "hashes"), map[string]string{api.HeaderInstance: "a b"}},
		{"bad hint", memQuery(repo, "view", "hashes"), map[string]string{api.HeaderHint: "read"}},
	}
	for _, tt := range tests {
		for who, token := range map[string]string{"reader": s.Token, "no access": other} {
			if r := do(t, s.URL, req{query: tt.query, token: token, headers: tt.headers}); r.status != http.StatusBadRequest {
				t.Errorf("%s, %s: GET ?%s = %d %s, want 400", tt.name, who, tt.query, r.status, r.body)
			}
		}
	}
}
