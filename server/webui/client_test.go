package webui_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/server/store"
)

// TestHistoryShowsTheClient checks that the history page names the client
// of each revision: the API's, and the web view's own for a restore, with
// the ID of the token the browser signed in with, as the API names it.
func TestHistoryShowsTheClient(t *testing.T) {
	srv := startServer(t)
	put(t, srv, srv.Token, "acme/app", map[string]string{"a.md": "one"})
	put(t, srv, srv.Token, "acme/app", map[string]string{"a.md": "two"})
	writer := signedIn(t, srv, "mia", grant("acme/**", store.LevelWrite))
	h := writer.get("/ui/history?repo=acme/app&key=a.md")
	if h.status != http.StatusOK || strings.Count(h.body, `<td class="client">token:`) != 2 || !strings.Contains(h.body, " via Go-http-client/1.1</td>") {
		t.Fatalf("history page = %d, does not name the API token and client of both revisions:\n%s", h.status, h.body)
	}
	form := url.Values{"csrf": {h.csrf(t)}, "repo": {"acme/app"}, "key": {"a.md"}, "version": {"1"}}
	if p := writer.post("/ui/restore", form); p.status != http.StatusOK || !strings.Contains(p.body, " via teammemd web view</td>") ||
		strings.Count(p.body, `<td class="client">token:`) != 3 {
		t.Errorf("history after a restore = %d, does not name the web view as the client and the token signed in with as its credential:\n%s", p.status, p.body)
	}
}
