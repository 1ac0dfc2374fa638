package server_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/servertest"
	"github.com/teammemd/teammemd/server/store"
)

// storeState is what a refused request must leave as it was: both repos'
// versions and checksums, the revisions of their keys, and the tokens.
type storeState struct {
	repos     map[string]string // repo -> "version checksum"
	revisions map[string]int    // repo key -> revision count
	tokens    map[string]time.Time
}

func readState(t *testing.T, s *servertest.Server) storeState {
	t.Helper()
	ctx := context.Background()
	st := storeState{repos: map[string]string{}, revisions: map[string]int{}, tokens: map[string]time.Time{}}
	for _, r := range []string{repo, "other/app"} {
		snap, err := s.Store.Snapshot(ctx, r, false)
		if err != nil {
			t.Fatalf("Snapshot(%s) error = %v", r, err)
		}
		st.repos[r] = fmt.Sprint(snap.Version, " ", snap.Checksum)
		for _, k := range []string{"a.md", "b.md"} {
			revs, err := store.ListHistory(ctx, s.Store, store.HistoryQuery{Repo: r, Key: k})
			if err != nil {
				t.Fatalf("History(%s %s) error = %v", r, k, err)
			}
			st.revisions[r+" "+k] = len(revs)
		}
	}
	toks, err := s.Store.ListTokens(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, tok := range toks {
		st.tokens[tok.ID] = tok.RevokedAt
	}
	return st
}

func (a storeState) equal(b storeState) bool {
	if len(a.repos) != len(b.repos) || len(a.revisions) != len(b.revisions) || len(a.tokens) != len(b.tokens) {
		return false
	}
	for k, v := range a.repos {
		if b.repos[k] != v {
			return false
		}
	}
	for k, v := range a.revisions {
		if b.revisions[k] != v {
			return false
		}
	}
	for k, v := range a.tokens {
		if !b.tokens[k].Equal(v) {
			return false
		}
	}
	return true
}

// TestAuthMatrix sends every authenticated route every kind of bad
// credential: each is refused with 401 or 403 and the protocol's code,
// before anything is read or written, and the store is left exactly as it
// was. A read-only token may read every route but not write.
func TestAuthMatrix(t *testing.T) {
	s := servertest.Start(t)
	first := put(t, s, repo, map[string]string{"a.md": "a"})
	put(t, s, "other/app", map[string]string{"a.md": "a"})
	reader := s.CreateToken(t, "reader", store.Grant{Pattern: "acme/*", Level: store.LevelRead})
	otherRepo := s.CreateToken(t, "other", store.Grant{Pattern: "other/**", Level: store.LevelWrite})
	revoked := s.CreateToken(t, "gone", store.Grant{Pattern: "**", Level: store.LevelWrite})
	toks, err := s.Store.ListTokens(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, tok := range toks {
		if tok.Subject == "gone" {
			if err := s.Store.RevokeToken(context.Background(), tok.ID, time.Now()); err != nil {
				t.Fatal(err)
			}
		}
	}

	stale := `"` + api.EmptyRepoChecksum + `"` // differs from the repo's: a wait answers at once
	routes := []struct {
		name, method, path, query, body string
		headers                         map[string]string
		write                           bool
		ok                              int // the status of an allowed request
	}{
		{"full pull", http.MethodGet, api.Path, memQuery(repo), "", nil, false, http.StatusOK},
		{"full pull, If-None-Match", http.MethodGet, api.Path, memQuery(repo), "", map[string]string{"If-None-Match": api.ETag(first.Checksum)}, false, http.StatusNotModified},
		{"hashes", http.MethodGet, api.Path, memQuery(repo, "view", "hashes"), "", nil, false, http.StatusOK},
		{"change wait", http.MethodGet, api.Path, memQuery(repo, "view", "hashes", "wait", "30"), "", map[string]string{"If-None-Match": stale}, false, http.StatusOK},
		{"history", http.MethodGet, api.HistoryPath, memQuery(repo, "key", "a.md"), "", nil, false, http.StatusOK},
		{"PUT", http.MethodPut, api.Path, memQuery(repo), `{"entries":{"b.md":"b"},"soft_delete_keys":["a.md"]}`, nil, true, 0},
	}
	creds := []struct {
		name          string
		authorization string // the header; "" sends none
		status        int    // for every route; 0: allowed, except writes for readOnly
		readOnly      bool
	}{
		{"no token", "", http.StatusUnauthorized, false},
		{"malformed: no scheme", s.Token, http.StatusUnauthorized, false},
		{"malformed: Basic", "Basic " + s.Token, http.StatusUnauthorized, false},
		{"malformed: empty bearer", "Bearer ", http.StatusUnauthorized, false},
		{"malformed: two tokens", "Bearer " + s.Token + " " + s.Token, http.StatusUnauthorized, false},
		{"wrong token", "Bearer tmd_" + "0123456789abcdef0123456789abcdef", http.StatusUnauthorized, false},
		{"revoked token", "Bearer " + revoked, http.StatusUnauthorized, false},
		{"token of another repo", "Bearer " + otherRepo, http.StatusForbidden, false},
		{"read-only token", "Bearer " + reader, 0, true},
	}
	for _, rt := range routes {
		for _, c := range creds {
			want, wantCode := c.status, ""
			switch {
			case want == http.StatusUnauthorized:
				wantCode = api.CodeUnauthenticated
			case want == http.StatusForbidden, c.readOnly && rt.write:
				want, wantCode = http.StatusForbidden, api.CodeACLDenied
			default:
				want = rt.ok
			}
			headers := map[string]string{"Authorization": c.authorization}
			for k, v := range rt.headers {
				headers[k] = v
			}
			before := readState(t, s)
			got := do(t, s.URL, req{method: rt.method, path: rt.path, query: rt.query, body: rt.body, headers: headers})
			if got.status != want || (wantCode != "" && got.errorCode() != wantCode) {
				t.Errorf("%s with %s = %d %q, want %d %q", rt.name, c.name, got.status, got.errorCode(), want, wantCode)
			}
			if want == http.StatusUnauthorized && got.header.Get("WWW-Authenticate") == "" {
				t.Errorf("%s with %s: 401 without WWW-Authenticate", rt.name, c.name)
			}
			if after := readState(t, s); wantCode != "" && !before.equal(after) {
				t.Errorf("%s with %s changed the store: %+v -> %+v", rt.name, c.name, before, after)
			}
		}
	}
	// The write token itself still works: the PUT goes through.
	if r := do(t, s.URL, req{method: http.MethodPut, repo: repo, token: s.Token, body: `{"entries":{"b.md":"b"}}`}); r.status != http.StatusOK {
		t.Errorf("PUT with the write token = %d %s, want 200", r.status, r.body)
	}
}

// TestUnauthenticatedRoutes checks that the routes anyone may call (health
// and metrics) answer without a token and hold no repo data, and that an
// unknown path is a 404 whatever the credentials.
func TestUnauthenticatedRoutes(t *testing.T) {
	s := servertest.Start(t)
	put(t, s, repo, map[string]string{"secret-name.md": "zq-note-body"})
	for _, path := range []string{"/livez", "/readyz", "/metrics"} {
		for _, auth := range []string{"", "Bearer tmd_wrong", "Bearer " + s.Token} {
			r := do(t, s.URL, req{path: path, headers: map[string]string{"Authorization": auth}})
			if r.status != http.StatusOK {
				t.Errorf("GET %s with Authorization %q = %d, want 200", path, auth, r.status)
			}
			for _, leak := range []string{repo, "secret-name", "zq-note-body", "tmd_"} {
				if bytes.Contains(r.body, []byte(leak)) {
					t.Errorf("GET %s answers %q, which it must not hold", path, leak)
				}
			}
		}
	}
	for _, auth := range []string{"", "Bearer " + s.Token} {
		if r := do(t, s.URL, req{path: "/api/claude_code/other", headers: map[string]string{"Authorization": auth}}); r.status != http.StatusNotFound {
			t.Errorf("unknown route with Authorization %q = %d, want 404", auth, r.status)
		}
	}
}
