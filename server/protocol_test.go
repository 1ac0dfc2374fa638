package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/server"
	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/servertest"
	"github.com/teammemd/teammemd/server/store"
)

const repo = "acme/app"

func TestGetNeverWritten(t *testing.T) {
	s := servertest.Start(t)
	for _, q := range []string{memQuery(repo), memQuery(repo, "view", "hashes")} {
		r := do(t, s.URL, req{query: q, token: s.Token})
		if r.status != http.StatusNotFound || r.errorCode() != api.CodeNotFound {
			t.Errorf("GET ?%s = %d %q, want 404 %q", q, r.status, r.errorCode(), api.CodeNotFound)
		}
	}
}

func TestPutThenGet(t *testing.T) {
	s := servertest.Start(t)
	entries := map[string]string{"MEMORY.md": "# notes\r\n\ufeffkeep bytes", "sub/deep/x.md": "x"}
	want := checksumOf(entries, nil)
	pr := put(t, s, repo, entries)
	if pr.Checksum != want || pr.Version != 1 || pr.Repo != repo {
		t.Fatalf("PUT = %+v, want checksum %s version 1 repo %s", pr, want, repo)
	}

	r := do(t, s.URL, req{repo: repo, token: s.Token})
	if got := r.header.Get("ETag"); got != `"`+want+`"` {
		t.Errorf("GET ETag = %s, want %q", got, want)
	}
	var full api.FullResponse
	decode(t, r, &full)
	if full.Checksum != want || full.Version != 1 || full.OrganizationID == "" || full.LastModified.IsZero() {
		t.Errorf("GET = %+v, want checksum %s version 1 with org and lastModified", full, want)
	}
	for k, v := range entries {
		if full.Content.Entries[k] != v || full.Content.EntryChecksums[k] != api.EntryChecksum(v) {
			t.Errorf("GET entry %s = %q %s, want %q %s", k, full.Content.Entries[k], full.Content.EntryChecksums[k], v, api.EntryChecksum(v))
		}
	}

	h := getHashes(t, s, repo)
	if h.Checksum != want || len(h.EntryChecksums) != len(entries) {
		t.Errorf("GET hashes = %+v, want checksum %s and %d entry checksums", h, want, len(entries))
	}
	if raw := string(do(t, s.URL, req{query: memQuery(repo, "view", "hashes"), token: s.Token}).body); strings.Contains(raw, "keep bytes") || strings.Contains(raw, `"content"`) {
		t.Errorf("GET hashes body = %s, want no entry bodies", raw)
	}
}

func TestRepoPercentEncoding(t *testing.T) {
	s := servertest.Start(t)
	put(t, s, "gitlab.example.com/group/sub/app", map[string]string{"a.md": "a"})
	for _, q := range []string{"repo=gitlab.example.com%2Fgroup%2Fsub%2Fapp", "repo=gitlab.example.com/group/sub/app"} {
		if r := do(t, s.URL, req{query: q, token: s.Token}); r.status != http.StatusOK {
			t.Errorf("GET ?%s = %d, want 200", q, r.status)
		}
	}
	if r := do(t, s.URL, req{query: "repo=Gitlab.example.com%2Fgroup%2Fsub%2Fapp", token: s.Token}); r.status != http.StatusNotFound {
		t.Errorf("GET with other case = %d, want 404 (slugs are case-sensitive)", r.status)
	}
}

func TestIfNoneMatch(t *testing.T) {
	s := servertest.Start(t)
	pr := put(t, s, repo, map[string]string{"a.md": "a"})
	tests := []struct {
		view, inm string
		want      int
	}{
		{"", `"` + pr.Checksum + `"`, http.StatusNotModified},
		{"hashes", `"` + pr.Checksum + `"`, http.StatusNotModified},
		{"", pr.Checksum, http.StatusNotModified},
		{"", `"` + api.EmptyRepoChecksum + `"`, http.StatusOK},
		{"hashes", `"sha256:00"`, http.StatusOK},
	}
	for _, tt := range tests {
		q := memQuery(repo)
		if tt.view != "" {
			q = memQuery(repo, "view", tt.view)
		}
		r := do(t, s.URL, req{query: q, token: s.Token, headers: map[string]string{"If-None-Match": tt.inm}})
		if r.status != tt.want {
			t.Errorf("GET view=%q If-None-Match %s = %d, want %d", tt.view, tt.inm, r.status, tt.want)
		}
		if got := r.header.Get("ETag"); got != api.ETag(pr.Checksum) {
			t.Errorf("GET view=%q If-None-Match %s ETag = %s, want %s", tt.view, tt.inm, got, api.ETag(pr.Checksum))
		}
	}
}

func TestIfMatch(t *testing.T) {
	s := servertest.Start(t)
	first := put(t, s, repo, map[string]string{"a.md": "a"})
	body := putBody(t, map[string]string{"b.md": "b"})

	stale := do(t, s.URL, req{method: http.MethodPut, repo: repo, token: s.Token, body: body,
		headers: map[string]string{"If-Match": `"` + api.EmptyRepoChecksum + `"`}})
	if stale.status != http.StatusPreconditionFailed || stale.errorCode() != api.CodePrecondition {
		t.Fatalf("PUT stale If-Match = %d %q, want 412 %q", stale.status, stale.errorCode(), api.CodePrecondition)
	}
	if h := getHashes(t, s, repo); h.Checksum != first.Checksum || h.Version != 1 {
		t.Fatalf("after 412: checksum %s version %d, want %s version 1 (nothing written)", h.Checksum, h.Version, first.Checksum)
	}
	ok := do(t, s.URL, req{method: http.MethodPut, repo: repo, token: s.Token, body: body,
		headers: map[string]string{"If-Match": `"` + first.Checksum + `"`}})
	if ok.status != http.StatusOK {
		t.Fatalf("PUT current If-Match = %d %s, want 200", ok.status, ok.body)
	}
	var pr api.PutResponse
	decode(t, ok, &pr)
	if want := checksumOf(map[string]string{"a.md": "a", "b.md": "b"}, nil); pr.Checksum != want || pr.Version != 2 {
		t.Errorf("PUT = %+v, want checksum %s version 2", pr, want)
	}
	if got := ok.header.Get("ETag"); got != api.ETag(pr.Checksum) {
		t.Errorf("PUT ETag = %s, want %s", got, api.ETag(pr.Checksum))
	}
}

func TestMergeTombstonesAndNoOp(t *testing.T) {
	s := servertest.Start(t)
	put(t, s, repo, map[string]string{"a.md": "a", "b.md": "b"})
	second := put(t, s, repo, map[string]string{"c.md": "c"}, "a.md")

	full := getFull(t, s, repo)
	if _, ok := full.Content.Entries["a.md"]; ok {
		t.Errorf("a.md still live after soft delete")
	}
	if full.Content.Entries["b.md"] != "b" || full.Content.Entries["c.md"] != "c" {
		t.Errorf("entries = %v, want b.md kept (merge) and c.md added", full.Content.Entries)
	}
	deletedAt, ok := full.Content.DeletedEntries["a.md"]
	if !ok || deletedAt <= 0 {
		t.Fatalf("deletedEntries = %v, want a tombstone for a.md", full.Content.DeletedEntries)
	}
	want := checksumOf(map[string]string{"b.md": "b", "c.md": "c"}, map[string]int64{"a.md": deletedAt})
	if full.Checksum != want || second.Checksum != want || full.Version != 2 {
		t.Errorf("checksum %s (PUT %s) version %d, want %s version 2", full.Checksum, second.Checksum, full.Version, want)
	}
	if h := getHashes(t, s, repo); h.DeletedEntries["a.md"] != deletedAt {
		t.Errorf("hashes deletedEntries = %v, want a.md: %d", h.DeletedEntries, deletedAt)
	}

	noop := put(t, s, repo, map[string]string{"b.md": "b"})
	if noop.Version != 2 || noop.Checksum != want {
		t.Errorf("no-op PUT = version %d checksum %s, want version 2 checksum %s", noop.Version, noop.Checksum, want)
	}
	empty := put(t, s, repo, map[string]string{})
	if empty.Version != 2 || empty.Checksum != want {
		t.Errorf("empty PUT = version %d checksum %s, want version 2 checksum %s", empty.Version, empty.Checksum, want)
	}

	revived := put(t, s, repo, map[string]string{"a.md": "again"})
	if want := checksumOf(map[string]string{"a.md": "again", "b.md": "b", "c.md": "c"}, nil); revived.Checksum != want || revived.Version != 3 {
		t.Errorf("rewrite of a deleted key = %+v, want checksum %s version 3", revived, want)
	}
}

func TestBadRequests(t *testing.T) {
	s := servertest.Start(t)
	tests := []struct {
		name   string
		method string
		query  string
		body   string
		code   string
	}{
		{"malformed JSON", "PUT", memQuery(repo), `{"entries":`, api.CodeInvalidRequest},
		{"wrong type", "PUT", memQuery(repo), `{"entries":[]}`, api.CodeInvalidRequest},
		{"null value", "PUT", memQuery(repo), `{"entries":{"a.md":null}}`, api.CodeInvalidRequest},
		{"non-UTF-8 value", "PUT", memQuery(repo), "{\"entries\":{\"a.md\":\"\xff\xfe\"}}", api.CodeInvalidRequest},
		{"lone surrogate", "PUT", memQuery(repo), `{"entries":{"a.md":"\ud800"}}`, api.CodeInvalidRequest},
		{"written and deleted", "PUT", memQuery(repo), `{"entries":{"a.md":"a"},"soft_delete_keys":["a.md"]}`, api.CodeInvalidRequest},
		{"no repo", "GET", "", "", api.CodeInvalidRequest},
		{"one-segment slug", "GET", "repo=acme", "", api.CodeInvalidRequest},
		{"dot-dot slug", "PUT", "repo=acme%2F..", `{"entries":{}}`, api.CodeInvalidRequest},
		{"slug with space", "GET", "repo=acme%2Fmy+app", "", api.CodeInvalidRequest},
		{"bad query escape", "GET", "repo=acme%2", "", api.CodeInvalidRequest},
		{"bad view", "GET", memQuery(repo, "view", "all"), "", api.CodeInvalidRequest},
		{"bad wait", "GET", memQuery(repo, "view", "hashes", "wait", "-1"), "", api.CodeInvalidRequest},
		{"wait without hashes", "GET", memQuery(repo, "wait", "5"), "", api.CodeInvalidRequest},
	}
	for _, key := range []string{"../x.md", "/etc/passwd", "C:x.md", `a\b.md`, "a/../b.md", "a//b.md", "%2e%2e/x.md",
		"a%2fb.md", "\uff0e\uff0e/x.md", "x\u2025/y.md", "a\x00b.md", "a\nb.md", "dir./x.md", "dir /x.md", ".", "",
		strings.Repeat("a/", 16) + "x.md", strings.Repeat("k", 513)} {
		tests = append(tests, struct {
			name, method, query, body, code string
		}{"key " + key, "PUT", memQuery(repo), putBodyRaw(key), api.CodeInvalidKey})
		tests = append(tests, struct {
			name, method, query, body, code string
		}{"delete key " + key, "PUT", memQuery(repo), `{"entries":{},"soft_delete_keys":[` + quote(key) + `]}`, api.CodeInvalidKey})
	}
	for _, tt := range tests {
		r := do(t, s.URL, req{method: tt.method, query: tt.query, body: tt.body, token: s.Token})
		if r.status != http.StatusBadRequest || r.errorCode() != tt.code {
			t.Errorf("%s: %s ?%s = %d %q, want 400 %q", tt.name, tt.method, tt.query, r.status, r.errorCode(), tt.code)
		}
	}
	if r := do(t, s.URL, req{repo: repo, token: s.Token}); r.status != http.StatusNotFound {
		t.Errorf("after bad PUTs GET = %d, want 404 (nothing stored)", r.status)
	}
}

// A field the protocol does not name may hold any JSON number, one past
// float64's range too, as encoding/json skips it: the entries are stored.
// Such a number where the body's object belongs is a 400 that says so.
func TestPutSkipsAnyNumberInAnUnknownField(t *testing.T) {
	s := servertest.Start(t)
	r := do(t, s.URL, req{method: http.MethodPut, repo: repo, token: s.Token, body: `{"entries":{"a.md":"a"},"x":[1E700,-2e-999]}`})
	if r.status != http.StatusOK {
		t.Fatalf("PUT with 1E700 in an unknown field = %d %s, want 200", r.status, r.body)
	}
	r = do(t, s.URL, req{method: http.MethodPut, repo: repo, token: s.Token, body: `1E700`})
	if r.status != http.StatusBadRequest || !strings.Contains(string(r.body), "must be a JSON object") {
		t.Errorf("PUT of the body 1E700 = %d %s, want 400 saying the body must be a JSON object", r.status, r.body)
	}
}

// putBodyRaw is a PUT body with one good entry and one entry under key, so
// an atomic server stores neither.
func putBodyRaw(key string) string {
	return `{"entries":{"good.md":"g",` + quote(key) + `:"v"}}`
}

func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20:
			b.WriteString(`\u00`)
			b.WriteByte("0123456789abcdef"[r>>4])
			b.WriteByte("0123456789abcdef"[r&15])
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func TestTooLarge(t *testing.T) {
	lim := api.Limits{MaxEntryBytes: 100, MaxBodyBytes: 1000, MaxEntries: 3}
	s := servertest.Start(t, servertest.WithLimits(lim))
	put(t, s, repo, map[string]string{"a.md": "a", "b.md": "b"})

	// Within the entry count and the entry cap, over the body cap: the body
	// is decoded as it arrives, so the fault found first is the answer.
	body := do(t, s.URL, req{method: http.MethodPut, repo: repo, token: s.Token,
		body: `{"entries":{"x.md":"x"},"padding":"` + strings.Repeat("p", 1000) + `"}`})
	if e := body.apiError(); body.status != http.StatusRequestEntityTooLarge || e.Code != api.CodeBodyTooLarge {
		t.Errorf("PUT over body cap = %d %q, want 413 %q", body.status, e.Code, api.CodeBodyTooLarge)
	}

	entry := do(t, s.URL, req{method: http.MethodPut, repo: repo, token: s.Token,
		body: putBody(t, map[string]string{"big.md": strings.Repeat("b", 101)})})
	e := entry.apiError()
	if maxBytes, _ := e.IntDetail("max_bytes"); entry.status != http.StatusRequestEntityTooLarge ||
		e.Code != api.CodeEntryTooLarge || e.Details["key"] != "big.md" || maxBytes != 100 || e.Kind != "request_too_large" {
		t.Errorf("PUT big entry = %d %+v, want 413 %q with key big.md max_bytes 100", entry.status, e, api.CodeEntryTooLarge)
	}

	many := do(t, s.URL, req{method: http.MethodPut, repo: repo, token: s.Token,
		body: putBody(t, map[string]string{"c.md": "c", "d.md": "d"})})
	e = many.apiError()
	maxEntries, _ := e.IntDetail("max_entries")
	received, _ := e.IntDetail("received_entries")
	if many.status != http.StatusRequestEntityTooLarge || e.Code != api.CodeTooManyEntries || maxEntries != 3 || received != 4 {
		t.Errorf("PUT over entry count = %d %+v, want 413 %q max_entries 3 received_entries 4", many.status, e, api.CodeTooManyEntries)
	}
	if h := getHashes(t, s, repo); h.Version != 1 || len(h.EntryChecksums) != 2 {
		t.Errorf("after 413s: version %d, %d entries, want version 1 with 2 entries", h.Version, len(h.EntryChecksums))
	}
	// Replacing a key and deleting one keeps the merged count within the cap.
	put(t, s, repo, map[string]string{"c.md": "c", "d.md": "d"}, "a.md", "b.md")
}

func TestAuthentication(t *testing.T) {
	s := servertest.Start(t)
	for _, h := range []string{"", "Bearer", "Bearer ", "Basic dXNlcjpwYXNz", "Bearer tmd_not-a-real-token", "Token " + s.Token} {
		r := do(t, s.URL, req{repo: repo, headers: map[string]string{"Authorization": h}})
		if r.status != http.StatusUnauthorized || r.errorCode() != api.CodeUnauthenticated {
			t.Errorf("Authorization %q = %d %q, want 401 %q", h, r.status, r.errorCode(), api.CodeUnauthenticated)
		}
		if strings.Contains(string(r.body), "tmd_") {
			t.Errorf("Authorization %q: body %s echoes the token", h, r.body)
		}
	}
	if r := do(t, s.URL, req{repo: repo, headers: map[string]string{"Authorization": "bearer " + s.Token}}); r.status != http.StatusNotFound {
		t.Errorf("lower-case bearer scheme = %d, want 404 (authenticated)", r.status)
	}
}

func TestAccessControl(t *testing.T) {
	s := servertest.Start(t)
	put(t, s, repo, map[string]string{"a.md": "a"})
	reader := s.CreateToken(t, "reader", store.Grant{Pattern: "acme/*", Level: store.LevelRead})
	other := s.CreateToken(t, "other", store.Grant{Pattern: "other/**", Level: store.LevelWrite})
	body := putBody(t, map[string]string{"b.md": "b"})
	tests := []struct {
		name, token, method, query, body string
		want                             int
	}{
		{"reader GET", reader, "GET", memQuery(repo), "", 200},
		{"reader hashes", reader, "GET", memQuery(repo, "view", "hashes"), "", 200},
		{"reader history", reader, "GET", "", "", 200},
		{"reader PUT", reader, "PUT", memQuery(repo), body, 403},
		{"reader GET deeper repo", reader, "GET", memQuery("acme/team/app"), "", 403},
		{"other GET", other, "GET", memQuery(repo), "", 403},
		{"other PUT", other, "PUT", memQuery(repo), body, 403},
		{"other history", other, "GET", "", "", 403},
	}
	for _, tt := range tests {
		r := req{method: tt.method, query: tt.query, body: tt.body, token: tt.token}
		if tt.query == "" {
			r.path, r.query = api.HistoryPath, memQuery(repo, "key", "a.md")
		}
		got := do(t, s.URL, r)
		if got.status != tt.want {
			t.Errorf("%s = %d %s, want %d", tt.name, got.status, got.body, tt.want)
		}
		if tt.want == 403 && got.errorCode() != api.CodeACLDenied {
			t.Errorf("%s code = %q, want %q", tt.name, got.errorCode(), api.CodeACLDenied)
		}
	}
	if h := getHashes(t, s, repo); h.Version != 1 {
		t.Errorf("after denied PUTs version = %d, want 1", h.Version)
	}
}

func TestCheckOrder(t *testing.T) {
	s := servertest.Start(t)
	first := put(t, s, repo, map[string]string{"a.md": "a"})
	other := s.CreateToken(t, "other", store.Grant{Pattern: "other/*", Level: store.LevelWrite})
	stale := map[string]string{"If-Match": `"` + api.EmptyRepoChecksum + `"`}
	tests := []struct {
		name, token, query, body string
		headers                  map[string]string
		want                     int
	}{
		{"401 before 400", "tmd_bogus", "repo=bad", `{`, nil, 401},
		{"400 before 403", other, "repo=bad", `{"entries":{}}`, nil, 400},
		{"400 body before 403", other, memQuery(repo), `{`, nil, 400},
		{"413 before 403", other, memQuery(repo), putBody(t, map[string]string{"a.md": strings.Repeat("x", api.DefaultMaxEntryBytes+1)}), nil, 413},
		{"403 before 412", other, memQuery(repo), `{"entries":{"b.md":"b"}}`, stale, 403},
		{"412", s.Token, memQuery(repo), `{"entries":{"b.md":"b"}}`, stale, 412},
	}
	for _, tt := range tests {
		r := do(t, s.URL, req{method: http.MethodPut, query: tt.query, body: tt.body, token: tt.token, headers: tt.headers})
		if r.status != tt.want {
			t.Errorf("%s: PUT = %d %s, want %d", tt.name, r.status, r.body, tt.want)
		}
	}
	if h := getHashes(t, s, repo); h.Checksum != first.Checksum {
		t.Errorf("checksum after refused PUTs = %s, want %s", h.Checksum, first.Checksum)
	}
}

func TestSecretDetected(t *testing.T) {
	s := servertest.Start(t, servertest.WithScanner(awsKeyScanner{}))
	secret := "AKIA" + "ABCDEFGHIJKLMNOP"
	r := do(t, s.URL, req{method: http.MethodPut, repo: repo, token: s.Token,
		body: putBody(t, map[string]string{"clean.md": "fine", "leak.md": "key = " + secret})})
	e := r.apiError()
	ids, _ := e.Details["rule_ids"].([]any)
	if r.status != http.StatusUnprocessableEntity || e.Code != api.CodeSecretDetected || len(ids) != 1 || ids[0] != "aws-access-token" {
		t.Fatalf("PUT with secret = %d %s, want 422 %q with rule_ids [aws-access-token]", r.status, r.body, api.CodeSecretDetected)
	}
	if strings.Contains(string(r.body), secret) {
		t.Errorf("422 body %s echoes the secret", r.body)
	}
	if got := do(t, s.URL, req{repo: repo, token: s.Token}); got.status != http.StatusNotFound {
		t.Errorf("after 422 GET = %d, want 404 (nothing stored)", got.status)
	}
	put(t, s, repo, map[string]string{"clean.md": "fine"})
}

func TestRateLimited(t *testing.T) {
	s := servertest.Start(t, servertest.WithRateLimit(server.RateLimit{RequestsPerSecond: 0.01, Burst: 2}))
	other := s.CreateToken(t, "other", store.Grant{Pattern: "**", Level: store.LevelRead})
	for i := range 2 {
		if r := do(t, s.URL, req{repo: repo, token: s.Token}); r.status != http.StatusNotFound {
			t.Fatalf("request %d = %d, want 404 (within burst)", i, r.status)
		}
	}
	r := do(t, s.URL, req{repo: repo, token: s.Token})
	if r.status != http.StatusTooManyRequests || r.errorCode() != api.CodeRateLimited || r.header.Get("Retry-After") == "" {
		t.Errorf("over the limit = %d %q Retry-After %q, want 429 %q with Retry-After", r.status, r.errorCode(), r.header.Get("Retry-After"), api.CodeRateLimited)
	}
	if r := do(t, s.URL, req{repo: repo, token: other}); r.status != http.StatusNotFound {
		t.Errorf("another subject = %d, want 404 (own bucket)", r.status)
	}
}

func TestMethodNotAllowed(t *testing.T) {
	s := servertest.Start(t)
	for _, tt := range []struct{ method, path string }{{"DELETE", api.Path}, {"POST", api.Path}, {"PUT", api.HistoryPath}} {
		r := do(t, s.URL, req{method: tt.method, path: tt.path, query: memQuery(repo), token: s.Token})
		if r.status != http.StatusMethodNotAllowed || r.header.Get("Allow") == "" {
			t.Errorf("%s %s = %d Allow %q, want 405 with Allow", tt.method, tt.path, r.status, r.header.Get("Allow"))
		}
	}
}

func TestStoreFailure(t *testing.T) {
	s := servertest.Start(t)
	put(t, s, repo, map[string]string{"a.md": "a"})
	if err := s.Store.Close(); err != nil {
		t.Fatal(err)
	}
	for _, r := range []req{
		{repo: repo, token: s.Token},
		{method: http.MethodPut, repo: repo, token: s.Token, body: `{"entries":{"b.md":"b"}}`},
		{path: api.HistoryPath, query: memQuery(repo, "key", "a.md"), token: s.Token},
	} {
		got := do(t, s.URL, r)
		if got.status < 500 {
			t.Errorf("%s %s with closed store = %d, want 5xx", r.method, r.path, got.status)
		}
	}
	if got := do(t, s.URL, req{path: "/readyz"}); got.status != http.StatusServiceUnavailable {
		t.Errorf("/readyz with closed store = %d, want 503", got.status)
	}
}

// TestDeniedSaysWhatIsMissing checks that a 403 keeps its code but tells a
// read-only token apart from a token with no grant on the repo.
func TestDeniedSaysWhatIsMissing(t *testing.T) {
	s := servertest.Start(t)
	put(t, s, repo, map[string]string{"a.md": "a"})
	reader := s.CreateToken(t, "reader", store.Grant{Pattern: "acme/*", Level: store.LevelRead})
	other := s.CreateToken(t, "other", store.Grant{Pattern: "other/**", Level: store.LevelWrite})
	body := putBody(t, map[string]string{"b.md": "b"})
	tests := []struct {
		name, token, method, body, want string
	}{
		{"reader PUT", reader, http.MethodPut, body, "this token can read this repo but not write it: writing needs a write grant: ask the server's admin for a token that has one (teammemd token create)"},
		{"other PUT", other, http.MethodPut, body, "this token has no access to this repo: it holds neither a read nor a write grant on it: ask the server's admin for a token whose grants cover it (teammemd token create)"},
		{"other GET", other, http.MethodGet, "", "this token has no access to this repo: it holds neither a read nor a write grant on it: ask the server's admin for a token whose grants cover it (teammemd token create)"},
	}
	for _, tt := range tests {
		got := do(t, s.URL, req{method: tt.method, repo: repo, token: tt.token, body: tt.body}).apiError()
		if got.Status != http.StatusForbidden || got.Code != api.CodeACLDenied || got.Message != tt.want {
			t.Errorf("%s = %d %s %q, want 403 %s %q", tt.name, got.Status, got.Code, got.Message, api.CodeACLDenied, tt.want)
		}
	}
}
