package auth_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/teammemd/teammemd/internal/lockedbuf"
	"github.com/teammemd/teammemd/server/auth"
	"github.com/teammemd/teammemd/server/auth/authtest"
	"github.com/teammemd/teammemd/server/servertest"
	"github.com/teammemd/teammemd/server/store"
	"github.com/teammemd/teammemd/server/store/postgres/pgtest"
)

// boundServer starts the real server with opts on a store of one kind and
// returns its URL and the store.
type boundServer func(t *testing.T, opts ...servertest.Option) (string, store.IdentityBindings)

// TestGitHubLoginBound: a GitHub login is bound to the user id of the
// first user that signs in as it. A token of another user with that login,
// as GitHub gives it once the first user renamed away and someone took the
// name, is refused with 403 saying how to have the login released, and
// the log names both ids; once an admin releases the binding, that user is
// accepted and bound, and the first user's token is refused once GitHub's
// answer about it is no longer cached.
func TestGitHubLoginBound(t *testing.T) {
	t.Run("SQLite", func(t *testing.T) {
		testGitHubLoginBound(t, func(t *testing.T, opts ...servertest.Option) (string, store.IdentityBindings) {
			srv := servertest.Start(t, opts...)
			return srv.URL, srv.Store
		})
	})
	t.Run("PostgreSQL", func(t *testing.T) {
		testGitHubLoginBound(t, func(t *testing.T, opts ...servertest.Option) (string, store.IdentityBindings) {
			srv := servertest.StartPostgres(t, pgtest.Schema(t), opts...)
			return srv.URL, srv.Store
		})
	})
}

func testGitHubLoginBound(t *testing.T, start boundServer) {
	clock := authtest.NewClock()
	gh := authtest.NewGitHub(t)
	const first, second = "ghp_aliceFirst0000000000000000000000000", "ghp_aliceSecond000000000000000000000000"
	gh.AddUserID(first, "alice", 1)
	gh.AddUserID(second, "alice", 2)
	gh.Grant("alice", "acme/app", "write")
	cfg := auth.Config{GitHub: auth.GitHubConfig{Enabled: true, APIURL: gh.URL, RepoHost: auth.GitHubHost, CacheTTL: time.Minute}}
	logs := &lockedbuf.Buffer{}
	base, bindings := start(t, servertest.WithAuth(cfg, auth.Options{HTTPClient: authtest.Client(t), Now: clock.Now}),
		servertest.WithLogger(slog.New(slog.NewJSONHandler(logs, nil))))
	ctx := context.Background()
	release := "teammemd admin identity unbind github:alice"

	want(t, "alice, user 1, first", callURL(t, base, http.MethodPut, "acme%2Fapp", first), 200, "", "")
	wantBound(t, bindings, "github:alice", "1")
	for range 2 { // refused again, not let through by a cache
		want(t, "alice, user 2", callURL(t, base, http.MethodPut, "acme%2Fapp", second), 403, auth.ReasonBound, release)
	}
	wantBoundLog(t, logs.String(), release)
	want(t, "alice, user 1, again", callURL(t, base, http.MethodGet, "acme%2Fapp", first), 200, "", "")

	if err := bindings.UnbindIdentity(ctx, "github:alice"); err != nil {
		t.Fatalf("UnbindIdentity() error = %v", err)
	}
	want(t, "alice, user 2, released", callURL(t, base, http.MethodPut, "acme%2Fapp", second), 200, "", "")
	wantBound(t, bindings, "github:alice", "2")
	clock.Advance(time.Minute)
	want(t, "alice, user 1, after the release", callURL(t, base, http.MethodGet, "acme%2Fapp", first), 403, auth.ReasonBound, release)
}

// wantBound checks that subject is bound to id.
func wantBound(t *testing.T, bindings store.IdentityBindings, subject, id string) {
	t.Helper()
	if b, err := bindings.IdentityBinding(context.Background(), subject); err != nil || b.AccountID != id {
		t.Errorf("IdentityBinding(%s) = %+v, %v, want bound to %s", subject, b, err, id)
	}
}

// wantBoundLog checks that the log has a warning naming the login, both
// user ids and the command that releases the binding.
func wantBoundLog(t *testing.T, logs, release string) {
	t.Helper()
	for line := range strings.SplitSeq(logs, "\n") {
		var rec map[string]any
		if json.Unmarshal([]byte(line), &rec) != nil || rec["login"] != "alice" {
			continue
		}
		if rec["level"] != "WARN" || rec["boundId"] != "1" || rec["id"] != "2" || rec["release"] != release {
			t.Errorf("log line of the refusal = %s, want a warning with login alice, boundId 1, id 2 and release %q", line, release)
		}
		return
	}
	t.Errorf("no log line names the login alice:\n%s", logs)
}
