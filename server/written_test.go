package server_test

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/servertest"
)

// TestPutAnswerNamesItsRevisions: a PUT of a client that sent its
// instance and changes the repo names the revisions it made, each as the
// history shows it (the answer's version, lastModified as time, the
// token's subject); one that changes nothing, or whose changed keys'
// names pass the bound, names none, and so does a PUT without the
// instance (a Claude Code client's answer has the fields it knows,
// TestBodiesCarryEveryField).
func TestPutAnswerNamesItsRevisions(t *testing.T) {
	s := servertest.Start(t)
	if pr := put(t, s, repo, map[string]string{"a.md": "a1", "b.md": "b1"}); pr.Written != nil {
		t.Errorf("written without an instance = %+v, want none", pr.Written)
	}
	put := func(t *testing.T, s *servertest.Server, repo string, entries map[string]string, deletes ...string) api.PutResponse {
		t.Helper()
		r := do(t, s.URL, req{method: http.MethodPut, repo: repo, token: s.Token, body: putBody(t, entries, deletes...),
			headers: map[string]string{api.HeaderInstance: "inst1"}})
		if r.status != http.StatusOK {
			t.Fatalf("PUT = %d %s, want 200", r.status, r.body)
		}
		var pr api.PutResponse
		decode(t, r, &pr)
		return pr
	}
	tests := []struct {
		name    string
		entries map[string]string
		deletes []string
		want    []string
	}{
		{"one changed, one as stored", map[string]string{"a.md": "a2", "b.md": "b1"}, nil, []string{"a.md"}},
		{"a new key and a deletion", map[string]string{"c.md": "c1"}, []string{"b.md"}, []string{"b.md", "c.md"}},
		{"nothing changed", map[string]string{"a.md": "a2"}, nil, nil},
	}
	for _, tt := range tests {
		pr := put(t, s, repo, tt.entries, tt.deletes...)
		if tt.want == nil {
			if pr.Written != nil {
				t.Errorf("%s: written = %+v, want none", tt.name, pr.Written)
			}
			continue
		}
		if pr.Written == nil || pr.Written.Subject != "servertest" || !slices.Equal(pr.Written.Keys, tt.want) {
			t.Fatalf("%s: written = %+v, want subject servertest, keys %q", tt.name, pr.Written, tt.want)
		}
		for _, rev := range repoHistory(t, s, "false") {
			if rev.Version != pr.Version {
				continue
			}
			if !slices.Contains(tt.want, rev.Key) || rev.Subject != pr.Written.Subject || !rev.Time.Equal(pr.LastModified) {
				t.Errorf("%s: revision %+v at the answer's version, want one of %q by %s at %v", tt.name, rev, tt.want, pr.Written.Subject, pr.LastModified)
			}
		}
	}
	long := map[string]string{}
	for i := range api.MaxWrittenKeyBytes/100 + 1 {
		long[fmt.Sprintf("%s%03d.md", strings.Repeat("k", 94), i)] = "x"
	}
	if pr := put(t, s, repo, long); pr.Written != nil {
		t.Errorf("written of %d keys of 100 bytes = %d keys, want none past %d bytes", len(long), len(pr.Written.Keys), api.MaxWrittenKeyBytes)
	}
}
