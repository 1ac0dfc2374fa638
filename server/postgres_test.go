package server_test

import (
	"context"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server"
	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/auth"
	"github.com/teammemd/teammemd/server/servertest"
	"github.com/teammemd/teammemd/server/store"
	"github.com/teammemd/teammemd/server/store/postgres"
	"github.com/teammemd/teammemd/server/store/postgres/pgtest"
)

// startPGReplica serves a replica on the database at dbURL, with a write
// token on every repo, and the test config as edits change it.
func startPGReplica(t testing.TB, dbURL string, edits ...func(*server.Config)) *servertest.PGServer {
	t.Helper()
	var opts []servertest.Option
	for _, edit := range edits {
		opts = append(opts, servertest.WithConfig(edit))
	}
	return servertest.StartPostgres(t, dbURL, opts...)
}

// awaitReadyz polls /readyz until it answers want, within a bounded time,
// and returns the body of that answer.
func awaitReadyz(t *testing.T, base string, want int) string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	got := 0
	for time.Now().Before(deadline) {
		r := do(t, base, req{path: "/readyz"})
		if got = r.status; got == want {
			return string(r.body)
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("/readyz = %d for 30s, want %d", got, want)
	return ""
}

// TestReadyzPostgres takes the change listener's connection away, then
// every connection to the database, and back: /readyz answers 503 while
// either is down and 200 once both are back.
func TestReadyzPostgres(t *testing.T) {
	db := pgtest.Database(t)
	r := startPGReplica(t, db)
	awaitReadyz(t, r.URL, http.StatusOK)
	admin := os.Getenv(pgtest.URLEnv)
	u, err := url.Parse(db)
	if err != nil {
		t.Fatal(err)
	}
	name := strings.TrimPrefix(u.Path, "/")
	allow := func(on bool) {
		pgtest.Exec(t, admin, "ALTER DATABASE "+quoteIdent(name)+" ALLOW_CONNECTIONS "+map[bool]string{true: "true", false: "false"}[on])
	}
	terminate := func(only string) {
		pgtest.Exec(t, admin, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
			WHERE datname = $1 AND pid <> pg_backend_pid() AND ($2 = '' OR application_name = $2)`, name, only)
	}

	allow(false)
	terminate(postgres.ListenerName)
	if body := awaitReadyz(t, r.URL, http.StatusServiceUnavailable); !strings.Contains(body, "other replicas' changes") {
		t.Errorf("/readyz with the listener down = %s, want it to name the change feed", body)
	}
	allow(true)
	awaitReadyz(t, r.URL, http.StatusOK)

	allow(false)
	terminate("")
	if body := awaitReadyz(t, r.URL, http.StatusServiceUnavailable); !strings.Contains(body, "store is not answering") {
		t.Errorf("/readyz with the database down = %s, want it to name the store", body)
	}
	allow(true)
	awaitReadyz(t, r.URL, http.StatusOK)
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// TestReviewAcrossReplicas proposes through one replica and reviews
// through another on the same database: the reviewer's wait on the second
// hears of the proposal, the approval lands for both.
func TestReviewAcrossReplicas(t *testing.T) {
	db := pgtest.Database(t)
	reviewed := func(c *server.Config) {
		c.Repos = []server.RepoConfig{{Name: repo, Review: server.ReviewRequired}}
	}
	one, two := startPGReplica(t, db, reviewed), startPGReplica(t, db, reviewed)
	carol, rec, err := auth.NewTokenRecord("carol", []store.Grant{{Pattern: "**", Level: store.LevelReview}}, time.Now())
	if err == nil {
		err = one.Store.CreateToken(context.Background(), rec)
	}
	if err != nil {
		t.Fatal(err)
	}
	awaitReadyz(t, two.URL, http.StatusOK)
	waited := make(chan reply, 1)
	go func() {
		waited <- do(t, two.URL, req{path: api.ProposalsPath, query: memQuery(repo, "wait", "30", "after", "0"), token: carol})
	}()
	r := do(t, one.URL, req{method: http.MethodPut, repo: repo, token: one.Token, body: putBody(t, map[string]string{"a.md": "a"})})
	var pr api.PutResponse
	decode(t, r, &pr)
	if r.status != http.StatusOK || pr.Review == nil {
		t.Fatalf("PUT through one replica = %d %s, want a proposal", r.status, r.body)
	}
	w := <-waited
	var list api.ProposalsResponse
	decode(t, w, &list)
	if w.status != http.StatusOK || len(list.Proposals) != 1 || list.Proposals[0].ID != pr.Review.Proposal {
		t.Fatalf("reviewer's wait on the other replica = %d %+v, want the proposal", w.status, list.Proposals)
	}
	path := api.ProposalsPath + "/" + strconv.FormatInt(pr.Review.Proposal, 10) + "/approve"
	if a := do(t, two.URL, req{method: http.MethodPost, path: path, token: carol}); a.status != http.StatusOK {
		t.Fatalf("approve through the other replica = %d %s", a.status, a.body)
	}
	if a := do(t, one.URL, req{method: http.MethodPost, path: path, token: carol}); a.status != http.StatusConflict {
		t.Errorf("approve again through the first replica = %d, want 409", a.status)
	}
	got := do(t, one.URL, req{repo: repo, token: one.Token})
	var full api.FullResponse
	decode(t, got, &full)
	if full.Content.Entries["a.md"] != "a" {
		t.Errorf("GET through the first replica after approval = %v, want a.md", full.Content.Entries)
	}
}
