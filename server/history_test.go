package server_test

import (
	"net/http"
	"strconv"
	"testing"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/servertest"
)

func TestHistoryPaging(t *testing.T) {
	s := servertest.Start(t)
	for i := 1; i <= 4; i++ {
		put(t, s, repo, map[string]string{"a.md": "v" + strconv.Itoa(i), "other.md": strconv.Itoa(i % 2)})
	}
	put(t, s, repo, nil, "a.md")

	var all []api.Revision
	cursor := ""
	for page := 0; page < 10; page++ {
		q := memQuery(repo, "key", "a.md", "limit", "2")
		if cursor != "" {
			q += "&cursor=" + cursor
		}
		r := do(t, s.URL, req{path: api.HistoryPath, query: q, token: s.Token})
		if r.status != http.StatusOK {
			t.Fatalf("history page %d = %d %s, want 200", page, r.status, r.body)
		}
		var h api.HistoryResponse
		decode(t, r, &h)
		if h.Repo != repo || h.Key != "a.md" || len(h.Revisions) > 2 {
			t.Fatalf("history page %d = %+v, want repo %s key a.md at most 2 revisions", page, h, repo)
		}
		all = append(all, h.Revisions...)
		if cursor = h.NextCursor; cursor == "" {
			break
		}
	}
	if len(all) != 5 {
		t.Fatalf("history has %d revisions, want 5", len(all))
	}
	if !all[0].Deleted || all[0].Content != nil || all[0].Subject != "servertest" {
		t.Errorf("newest revision = %+v, want a deletion by servertest", all[0])
	}
	for i, rev := range all[1:] {
		want := "v" + strconv.Itoa(4-i)
		if rev.Content == nil || *rev.Content != want || rev.Checksum != api.EntryChecksum(want) {
			t.Errorf("revision %d = %+v, want content %q", i+1, rev, want)
		}
		if rev.Version >= all[i].Version {
			t.Errorf("revision %d version %d, want below %d (newest first)", i+1, rev.Version, all[i].Version)
		}
	}
}

func TestHistoryErrors(t *testing.T) {
	s := servertest.Start(t)
	put(t, s, repo, map[string]string{"a.md": "a"})
	tests := []struct {
		name, query string
		want        int
		code        string
	}{
		{"unknown key", memQuery(repo, "key", "b.md"), 404, api.CodeNotFound},
		{"unknown repo", memQuery("acme/none", "key", "a.md"), 404, api.CodeNotFound},
		{"bad key", memQuery(repo, "key", "../a.md"), 400, api.CodeInvalidKey},
		{"no key", memQuery(repo), 400, api.CodeInvalidKey},
		{"bad limit", memQuery(repo, "key", "a.md", "limit", "0"), 400, api.CodeInvalidRequest},
		{"bad cursor", memQuery(repo, "key", "a.md", "cursor", "x"), 400, api.CodeInvalidRequest},
		{"bad slug", "repo=acme&key=a.md", 400, api.CodeInvalidRequest},
	}
	for _, tt := range tests {
		r := do(t, s.URL, req{path: api.HistoryPath, query: tt.query, token: s.Token})
		if r.status != tt.want || r.errorCode() != tt.code {
			t.Errorf("%s: history = %d %q, want %d %q", tt.name, r.status, r.errorCode(), tt.want, tt.code)
		}
	}
}
