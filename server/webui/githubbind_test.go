package webui_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/server"
	"github.com/teammemd/teammemd/server/auth"
	"github.com/teammemd/teammemd/server/auth/authtest"
	"github.com/teammemd/teammemd/server/servertest"
)

// TestGitHubSignInBoundLogin: a GitHub token pasted in the sign-in form
// binds its login to its user, here an admin of the view. A token of
// another user with that login gets a 403 page that says how to have the
// login released, and no session; once an admin releases it, that user
// signs in, and the first user's session ends at its next page.
func TestGitHubSignInBoundLogin(t *testing.T) {
	gh := authtest.NewGitHub(t)
	const first, second = "ghp_aliceFirst0000000000000000000000000", "ghp_aliceSecond000000000000000000000000"
	gh.AddUserID(first, "alice", 1)
	gh.AddUserID(second, "alice", 2)
	cfg := auth.Config{GitHub: auth.GitHubConfig{Enabled: true, APIURL: gh.URL, RepoHost: auth.GitHubHost}}
	srv := startServer(t, servertest.WithAuth(cfg, auth.Options{HTTPClient: authtest.Client(t)}),
		servertest.WithConfig(func(c *server.Config) { c.Auth, c.UI.Admins = cfg, []string{admin, "github:alice"} }))

	owner := newBrowser(t, srv.URL)
	if p := owner.signIn(first); p.status != http.StatusOK || !strings.Contains(p.body, "github:alice") {
		t.Fatalf("sign in as alice, user 1 = %d at %s, want signed in:\n%s", p.status, p.url, p.body)
	}
	if p := owner.get("/ui/audit"); p.status != http.StatusOK {
		t.Fatalf("GET /ui/audit as alice, user 1 = %d, want 200", p.status)
	}
	hash := owner.sessionHash(t)

	taker := newBrowser(t, srv.URL)
	p := taker.signIn(second)
	if p.status != http.StatusForbidden || !strings.Contains(p.body, "teammemd admin identity unbind github:alice") {
		t.Errorf("sign in as alice, user 2 = %d, want 403 saying how to release the login:\n%s", p.status, p.body)
	}
	if p := taker.get("/ui/audit"); !signedOut(p) {
		t.Errorf("GET /ui/audit after a refused sign-in = %d at %s, want the sign-in page", p.status, p.url)
	}

	if err := srv.Store.UnbindIdentity(context.Background(), "github:alice"); err != nil {
		t.Fatal(err)
	}
	if p := taker.signIn(second); p.status != http.StatusOK || !strings.Contains(p.body, "github:alice") {
		t.Errorf("sign in as alice, user 2, after the release = %d at %s, want signed in:\n%s", p.status, p.url, p.body)
	}
	if p := owner.get("/ui/audit"); !signedOut(p) {
		t.Errorf("GET /ui/audit in user 1's session after the login went to user 2 = %d at %s, want the sign-in page", p.status, p.url)
	}
	if !sessionEnded(t, srv, hash) {
		t.Error("user 1's session is still in the store after the login went to user 2")
	}
}
