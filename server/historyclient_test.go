package server_test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/auth"
	"github.com/teammemd/teammemd/server/servertest"
)

// repoHistory reads the first page of repo's history, with or without
// content.
func repoHistory(t *testing.T, s *servertest.Server, content string) []api.Revision {
	t.Helper()
	r := do(t, s.URL, req{path: api.HistoryPath, query: memQuery(repo, "content", content), token: s.Token})
	if r.status != http.StatusOK {
		t.Fatalf("history = %d %s, want 200", r.status, r.body)
	}
	var h api.HistoryResponse
	decode(t, r, &h)
	return h.Revisions
}

func TestHistoryRecordsTheClient(t *testing.T) {
	s := servertest.Start(t)
	tok, err := s.Store.TokenByHash(context.Background(), auth.HashToken(s.Token))
	if err != nil {
		t.Fatal(err)
	}
	write := func(headers map[string]string, entries map[string]string, deletes ...string) {
		t.Helper()
		r := do(t, s.URL, req{method: http.MethodPut, repo: repo, token: s.Token, body: putBody(t, entries, deletes...), headers: headers})
		if r.status != http.StatusOK {
			t.Fatalf("PUT = %d %s, want 200", r.status, r.body)
		}
	}
	write(map[string]string{"User-Agent": "teammemd/1.4.0 (linux/amd64)", api.HeaderClient: "ann-laptop"},
		map[string]string{"a.md": "A"})
	write(nil, nil, "a.md") // the test client's default User-Agent, no machine
	write(map[string]string{"User-Agent": strings.Repeat("u", 500), api.HeaderClient: "box\t\u202eevil\xff" + strings.Repeat("h", 100)},
		map[string]string{"b.md": "B"})
	cred := "token:" + tok.ID
	want := map[string]string{
		"a.md@1": cred + " via teammemd/1.4.0 (linux/amd64) on ann-laptop",
		"a.md@2": cred + " via claude-cli/2.0 (external, cli)",
	}
	for _, content := range []string{"true", "false"} {
		revs := repoHistory(t, s, content)
		if len(revs) != 3 {
			t.Fatalf("history content=%s = %d revisions, want 3", content, len(revs))
		}
		for _, rev := range revs {
			if w, ok := want[rev.Key+"@"+strconv.FormatInt(rev.Version, 10)]; ok && rev.Client != w {
				t.Errorf("content=%s: %s v%d client = %q, want %q", content, rev.Key, rev.Version, rev.Client, w)
			}
		}
		long := revs[0].Client
		if len(long) > api.MaxClientBytes || !strings.HasPrefix(long, cred+" via uuu") || !strings.Contains(long, " on box evil") {
			t.Errorf("content=%s: client of an oversized request = %q (%d bytes), want at most %d bytes naming %s and the machine",
				content, long, len(long), api.MaxClientBytes, cred)
		}
		if strings.ContainsAny(long, "\t\u202e") || !utf8.ValidString(long) {
			t.Errorf("content=%s: client = %q keeps a control character or invalid UTF-8", content, long)
		}
	}
}
