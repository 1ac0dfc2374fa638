package webui_test

import (
	"bytes"
	"encoding/json"
	"html"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"testing"

	"github.com/teammemd/teammemd/server"
	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/servertest"
	"github.com/teammemd/teammemd/server/store"
)

// reviewMarker is what the review tests' secret scanner takes for a
// secret.
const reviewMarker = "SECRET-MARKER-5678"

// reviewTeam is a server whose repo acme/app is under review, with its
// people: alice and bob write, carol and dave review, eve reads another
// repo only.
type reviewTeam struct {
	srv                          *servertest.Server
	alice, bob, carol, dave, eve string
}

func startReviewTeam(t *testing.T) *reviewTeam {
	t.Helper()
	srv := startServer(t, servertest.WithScanner(servertest.MarkerScanner(reviewMarker)),
		servertest.WithConfig(func(c *server.Config) {
			c.Repos = []server.RepoConfig{{Name: "acme/app", Review: server.ReviewRequired}}
		}))
	seed(t, srv, "acme/app", map[string]string{
		"deploy.md": "---\nname: Deploy\ndescription: How we ship\n---\n# Deploy\n\nStaging listens on port 8080.\n",
		"oncall.md": "Page the primary first.\n",
	})
	seed(t, srv, "other/lib", map[string]string{"a.md": "other notes"})
	return &reviewTeam{srv: srv,
		alice: srv.CreateToken(t, "alice", grant("acme/app", store.LevelWrite)),
		bob:   srv.CreateToken(t, "bob", grant("acme/app", store.LevelWrite)),
		carol: srv.CreateToken(t, "carol", grant("acme/app", store.LevelReview)),
		dave:  srv.CreateToken(t, "dave", grant("acme/**", store.LevelReview)),
		eve:   srv.CreateToken(t, "eve", grant("other/lib", store.LevelRead)),
	}
}

// propose PUTs entries to repo with token, as a daemon does, and returns
// the proposal the server made of it.
func propose(t *testing.T, srv *servertest.Server, token, repo string, entries map[string]string) int64 {
	t.Helper()
	body, err := json.Marshal(map[string]any{"entries": entries})
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPut, srv.URL+api.Path+"?repo="+url.QueryEscape(repo), bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("PUT %s: %v", repo, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	id, err := strconv.ParseInt(resp.Header.Get(api.ProposalHeader), 10, 64)
	if resp.StatusCode != http.StatusOK || err != nil {
		t.Fatalf("PUT %s = %d %s with %s %q, want 200 and a proposal", repo, resp.StatusCode, b, api.ProposalHeader, resp.Header.Get(api.ProposalHeader))
	}
	return id
}

// proposal reads proposal id from the store.
func proposal(t *testing.T, srv *servertest.Server, id int64) store.Proposal {
	t.Helper()
	p, err := srv.Store.Proposal(t.Context(), id)
	if err != nil {
		t.Fatalf("Proposal(%d) = %v", id, err)
	}
	return p
}

func proposalURL(id int64) string { return "/ui/proposal?id=" + strconv.FormatInt(id, 10) }

// decide posts a form on proposal id to action (approve, edit, reject,
// purge) with the session's anti-forgery token.
func (b *browser) decide(action string, id int64, form url.Values) page {
	b.t.Helper()
	if form == nil {
		form = url.Values{}
	}
	form.Set("csrf", b.get("/ui/").csrf(b.t))
	form.Set("id", strconv.FormatInt(id, 10))
	return b.post("/ui/proposal/"+action, form)
}

var ifMatchInput = regexp.MustCompile(`name="if_match" value="([^"]+)"`)

// ifMatch is the repo checksum the edit form of p was made against.
func (p page) ifMatch(t *testing.T) string {
	t.Helper()
	m := ifMatchInput.FindStringSubmatch(p.body)
	if m == nil {
		t.Fatalf("page %s has no edit form:\n%s", p.url, p.body)
	}
	return html.UnescapeString(m[1])
}
