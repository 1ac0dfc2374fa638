package server_test

import (
	"cmp"
	"net/http"
	"strconv"
	"strings"
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
		{"empty key", memQuery(repo, "key", ""), 400, api.CodeInvalidKey},
		{"repo cursor for one key", memQuery(repo, "key", "a.md", "cursor", "2:a.md"), 400, api.CodeInvalidRequest},
		{"bad repo cursor", memQuery(repo, "cursor", "x:a.md"), 400, api.CodeInvalidRequest},
		{"unknown repo, every key", memQuery("acme/none"), 404, api.CodeNotFound},
		{"bad limit", memQuery(repo, "key", "a.md", "limit", "0"), 400, api.CodeInvalidRequest},
		{"bad cursor", memQuery(repo, "key", "a.md", "cursor", "x"), 400, api.CodeInvalidRequest},
		{"bad slug", "repo=acme&key=a.md", 400, api.CodeInvalidRequest},
		{"content neither true nor false", memQuery(repo, "content", "no"), 400, api.CodeInvalidRequest},
		{"content empty", memQuery(repo, "key", "a.md", "content", ""), 400, api.CodeInvalidRequest},
		{"content given twice", memQuery(repo, "content", "false", "content", "false"), 400, api.CodeInvalidRequest},
	}
	for _, tt := range tests {
		r := do(t, s.URL, req{path: api.HistoryPath, query: tt.query, token: s.Token})
		if r.status != tt.want || r.errorCode() != tt.code {
			t.Errorf("%s: history = %d %q, want %d %q", tt.name, r.status, r.errorCode(), tt.want, tt.code)
		}
	}
}

// TestRepoHistoryPaging: without a key the history lists every entry's
// revisions, newest first, each with its key, and a page may end inside
// one version: the next page starts with the rest of it.
func TestRepoHistoryPaging(t *testing.T) {
	s := servertest.Start(t)
	put(t, s, repo, map[string]string{"a.md": "a1", "b.md": "b1", "c.md": "c1"})
	put(t, s, repo, map[string]string{"a.md": "a2"})
	put(t, s, repo, nil, "b.md")
	var got []string
	cursor := ""
	for page := 0; page < 10; page++ {
		q := memQuery(repo, "limit", "2")
		if cursor != "" {
			q += "&cursor=" + cursor
		}
		r := do(t, s.URL, req{path: api.HistoryPath, query: q, token: s.Token})
		if r.status != http.StatusOK {
			t.Fatalf("repo history page %d = %d %s, want 200", page, r.status, r.body)
		}
		var h api.HistoryResponse
		decode(t, r, &h)
		for _, rev := range h.Revisions {
			got = append(got, strconv.FormatInt(rev.Version, 10)+" "+rev.Key+" "+strconv.FormatBool(rev.Deleted))
		}
		if cursor = h.NextCursor; cursor == "" {
			break
		}
	}
	want := []string{"3 b.md true", "2 a.md false", "1 a.md false", "1 b.md false", "1 c.md false"}
	if strings.Join(got, ", ") != strings.Join(want, ", ") {
		t.Errorf("repo history = %q, want %q", got, want)
	}
}

// TestHistoryWithoutContent: content=false lists the same revisions, with
// their checksums, subjects and times, and no content, for one key and for
// the whole repo; content=true is the default.
func TestHistoryWithoutContent(t *testing.T) {
	s := servertest.Start(t)
	put(t, s, repo, map[string]string{"a.md": "one", "b.md": "B"})
	put(t, s, repo, map[string]string{"a.md": "two"})
	put(t, s, repo, nil, "b.md")
	tests := []struct {
		name        string
		query       string
		wantContent bool
		want        []string
	}{
		{"repo", memQuery(repo, "content", "false"), false, []string{"3 b.md deleted", "2 a.md two", "1 a.md one", "1 b.md B"}},
		{"one key", memQuery(repo, "key", "a.md", "content", "false"), false, []string{"2 a.md two", "1 a.md one"}},
		{"repo with content", memQuery(repo, "content", "true"), true, []string{"3 b.md deleted", "2 a.md two", "1 a.md one", "1 b.md B"}},
	}
	for _, tt := range tests {
		r := do(t, s.URL, req{path: api.HistoryPath, query: tt.query, token: s.Token})
		if r.status != http.StatusOK {
			t.Fatalf("%s: history = %d %s, want 200", tt.name, r.status, r.body)
		}
		var h api.HistoryResponse
		decode(t, r, &h)
		var got []string
		for _, rev := range h.Revisions {
			key := cmp.Or(rev.Key, "a.md")
			line := strconv.FormatInt(rev.Version, 10) + " " + key
			switch {
			case rev.Deleted:
				line += " deleted"
			case rev.Checksum == api.EntryChecksum("one"):
				line += " one"
			case rev.Checksum == api.EntryChecksum("two"):
				line += " two"
			case rev.Checksum == api.EntryChecksum("B"):
				line += " B"
			}
			got = append(got, line)
			if (rev.Content != nil) != (tt.wantContent && !rev.Deleted) || rev.Subject != "servertest" || rev.Time.IsZero() {
				t.Errorf("%s: revision %s = %+v, want content %v, subject servertest and a time", tt.name, line, rev, tt.wantContent)
			}
		}
		if strings.Join(got, ", ") != strings.Join(tt.want, ", ") {
			t.Errorf("%s: history = %q, want %q", tt.name, got, tt.want)
		}
	}
}
