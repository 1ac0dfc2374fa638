package server_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/servertest"
	"github.com/teammemd/teammemd/server/store"
)

// fields decodes a JSON object into its raw top-level fields.
func fields(t *testing.T, what string, body []byte) map[string]json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("%s: body %s: %v", what, body, err)
	}
	return m
}

// wantFields checks that body has exactly the named top-level fields, each
// non-null, and a lastModified in RFC 3339 UTC.
func wantFields(t *testing.T, what string, body []byte, want ...string) map[string]json.RawMessage {
	t.Helper()
	m := fields(t, what, body)
	got := make([]string, 0, len(m))
	for k, v := range m {
		got = append(got, k)
		if string(v) == "null" {
			t.Errorf("%s: field %s is null", what, k)
		}
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("%s: fields = %v, want %v", what, got, want)
	}
	var lm string
	if err := json.Unmarshal(m["lastModified"], &lm); err != nil {
		t.Fatalf("%s: lastModified %s: %v", what, m["lastModified"], err)
	}
	if _, err := time.Parse(time.RFC3339, lm); err != nil || !strings.HasSuffix(lm, "Z") {
		t.Errorf("%s: lastModified = %q, want RFC 3339 in UTC (Z)", what, lm)
	}
	return m
}

var (
	topFields     = []string{"organizationId", "repo", "version", "lastModified", "checksum"}
	fullFields    = append(slices.Clone(topFields), "content")
	hashesFields  = append(slices.Clone(topFields), "entryChecksums", "deletedEntries")
	contentFields = []string{"entries", "entryChecksums", "deletedEntries"}
)

func TestBodiesCarryEveryField(t *testing.T) {
	s := servertest.Start(t)
	pr := do(t, s.URL, req{method: http.MethodPut, repo: repo, token: s.Token, body: putBody(t, map[string]string{"a.md": "a"})})
	wantFields(t, "PUT", pr.body, topFields...)

	// Without a tombstone yet, and again once every entry is deleted: a repo
	// emptied by deletes is still 200, not 404.
	for _, step := range []string{"live", "all deleted"} {
		if step == "all deleted" {
			put(t, s, repo, map[string]string{}, "a.md")
		}
		full := do(t, s.URL, req{repo: repo, token: s.Token})
		if full.status != http.StatusOK {
			t.Fatalf("%s: GET = %d %s, want 200", step, full.status, full.body)
		}
		m := wantFields(t, step+": GET full", full.body, fullFields...)
		c := fields(t, step+": content", m["content"])
		for _, f := range contentFields {
			if v, ok := c[f]; !ok || string(v) == "null" {
				t.Errorf("%s: GET full content.%s = %s, want an object", step, f, v)
			}
		}
		h := do(t, s.URL, req{query: memQuery(repo, "view", "hashes"), token: s.Token})
		wantFields(t, step+": GET hashes", h.body, hashesFields...)
		if step == "all deleted" && (!strings.Contains(string(full.body), `"entries":{}`) || !strings.Contains(string(h.body), `"deletedEntries":{"a.md":`)) {
			t.Errorf("%s: GET = %s, hashes = %s, want no entries and a tombstone for a.md", step, full.body, h.body)
		}
	}
}

func TestIfMatchOnNeverWrittenRepo(t *testing.T) {
	s := servertest.Start(t)
	body := putBody(t, map[string]string{"a.md": "a"})
	other := do(t, s.URL, req{method: http.MethodPut, repo: repo, token: s.Token, body: body,
		headers: map[string]string{"If-Match": `"sha256:00"`}})
	if other.status != http.StatusPreconditionFailed {
		t.Errorf("PUT on a never-written repo with If-Match sha256:00 = %d, want 412", other.status)
	}
	empty := do(t, s.URL, req{method: http.MethodPut, repo: repo, token: s.Token, body: body,
		headers: map[string]string{"If-Match": api.ETag(api.EmptyRepoChecksum)}})
	if empty.status != http.StatusOK {
		t.Errorf("PUT on a never-written repo with If-Match of the empty checksum = %d %s, want 200", empty.status, empty.body)
	}
}

func TestGetCheckOrder(t *testing.T) {
	s := servertest.Start(t)
	put(t, s, repo, map[string]string{"a.md": "a"})
	other := s.CreateToken(t, "other", store.Grant{Pattern: "other/*", Level: store.LevelRead})
	tests := []struct {
		name, token, path, query string
		want                     int
	}{
		{"401 before 400", "tmd_bogus", api.Path, memQuery(repo, "view", "all"), 401},
		{"bad view: 400 before 403", other, api.Path, memQuery(repo, "view", "all"), 400},
		{"bad wait: 400 before 403", other, api.Path, memQuery(repo, "view", "hashes", "wait", "x"), 400},
		{"bad history key: 400 before 403", other, api.HistoryPath, memQuery(repo, "key", "../x.md"), 400},
		{"403", other, api.Path, memQuery(repo), 403},
	}
	for _, tt := range tests {
		if r := do(t, s.URL, req{path: tt.path, query: tt.query, token: tt.token}); r.status != tt.want {
			t.Errorf("%s: GET = %d %s, want %d", tt.name, r.status, r.body, tt.want)
		}
	}
}
