package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/servertest"
)

// reply is one HTTP answer.
type reply struct {
	status int
	header http.Header
	body   []byte
}

// errorCode returns details.error_code of an error envelope.
func (r reply) errorCode() string {
	return api.ParseError(r.status, r.body).Code
}

func (r reply) apiError() *api.Error { return api.ParseError(r.status, r.body) }

// req is one request to the team memory API.
type req struct {
	method  string
	path    string // default api.Path
	query   string // raw query; default repo=<repo>
	repo    string
	token   string
	body    string
	headers map[string]string
}

// memURL returns the URL of the collection route for repo with extra query
// parameters, the repo percent-encoded as clients send it.
func memQuery(repo string, extra ...string) string {
	q := "repo=" + url.QueryEscape(repo)
	for i := 0; i+1 < len(extra); i += 2 {
		q += "&" + extra[i] + "=" + url.QueryEscape(extra[i+1])
	}
	return q
}

func do(t testing.TB, base string, r req) reply {
	t.Helper()
	return doCtx(t, context.Background(), base, r)
}

func doCtx(t testing.TB, ctx context.Context, base string, r req) reply {
	t.Helper()
	if r.method == "" {
		r.method = http.MethodGet
	}
	if r.path == "" {
		r.path = api.Path
	}
	if r.query == "" && r.repo != "" {
		r.query = memQuery(r.repo)
	}
	u := base + r.path
	if r.query != "" {
		u += "?" + r.query
	}
	var body io.Reader
	if r.body != "" || r.method == http.MethodPut {
		body = strings.NewReader(r.body)
	}
	hr, err := http.NewRequestWithContext(ctx, r.method, u, body)
	if err != nil {
		t.Fatalf("new request: %v", err)
	}
	if r.token != "" {
		hr.Header.Set("Authorization", "Bearer "+r.token)
	}
	hr.Header.Set("anthropic-beta", "ccr-byoc-2025-07-29")
	hr.Header.Set("User-Agent", "claude-cli/2.0 (external, cli)")
	for k, v := range r.headers {
		hr.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(hr)
	if err != nil {
		t.Fatalf("%s %s: %v", r.method, u, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: read body: %v", r.method, u, err)
	}
	return reply{status: resp.StatusCode, header: resp.Header, body: b}
}

// putBody encodes a PUT request.
func putBody(t testing.TB, entries map[string]string, deletes ...string) string {
	t.Helper()
	b, err := json.Marshal(api.PutRequest{Entries: entries, SoftDeleteKeys: deletes})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// put writes entries to repo and fails the test unless it answers 200.
func put(t testing.TB, s *servertest.Server, repo string, entries map[string]string, deletes ...string) api.PutResponse {
	t.Helper()
	r := do(t, s.URL, req{method: http.MethodPut, repo: repo, token: s.Token, body: putBody(t, entries, deletes...)})
	if r.status != http.StatusOK {
		t.Fatalf("PUT %s = %d %s, want 200", repo, r.status, r.body)
	}
	var pr api.PutResponse
	decode(t, r, &pr)
	return pr
}

func getFull(t testing.TB, s *servertest.Server, repo string) api.FullResponse {
	t.Helper()
	r := do(t, s.URL, req{repo: repo, token: s.Token})
	if r.status != http.StatusOK {
		t.Fatalf("GET %s = %d %s, want 200", repo, r.status, r.body)
	}
	var full api.FullResponse
	decode(t, r, &full)
	return full
}

func getHashes(t testing.TB, s *servertest.Server, repo string) api.HashesResponse {
	t.Helper()
	r := do(t, s.URL, req{repo: repo, token: s.Token, query: memQuery(repo, "view", "hashes")})
	if r.status != http.StatusOK {
		t.Fatalf("GET hashes %s = %d %s, want 200", repo, r.status, r.body)
	}
	var h api.HashesResponse
	decode(t, r, &h)
	return h
}

func decode(t testing.TB, r reply, v any) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(r.body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("decode %T from %s: %v", v, r.body, err)
	}
}

// checksumOf computes the repo checksum independently of the server.
func checksumOf(entries map[string]string, tombstones map[string]int64) string {
	sums := make(map[string]string, len(entries))
	for k, v := range entries {
		sums[k] = api.EntryChecksum(v)
	}
	return api.RepoChecksum(sums, tombstones)
}

// awsKeyScanner flags values and key names holding something shaped like
// an AWS access key id. It stands in for the gitleaks-based scanner.
type awsKeyScanner struct{}

var awsKey = regexp.MustCompile(`AKIA[0-9A-Z]{16}`)

func (awsKeyScanner) ScanEntries(_ context.Context, entries map[string]string) (map[string][]string, error) {
	hits := map[string][]string{}
	for k, v := range entries {
		if awsKey.MatchString(v) {
			hits[k] = []string{"aws-access-token"}
		}
	}
	return hits, nil
}

func (awsKeyScanner) ScanKeys(_ context.Context, keys []string) (map[string][]string, error) {
	hits := map[string][]string{}
	for _, k := range keys {
		if awsKey.MatchString(k) {
			hits[k] = []string{"aws-access-token"}
		}
	}
	return hits, nil
}
