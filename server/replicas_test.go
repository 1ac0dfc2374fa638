package server_test

import (
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/server"
	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/servertest"
	"github.com/teammemd/teammemd/server/store/postgres/pgtest"
)

// TestReviewHeldWhereAnyReplicaRequiresIt: two replicas on one database,
// only the first configured to hold writes to the repo for review. A write
// through the second is held as a proposal all the same, and the second
// says, in its log and its metrics, that the replicas' settings differ.
func TestReviewHeldWhereAnyReplicaRequiresIt(t *testing.T) {
	db := pgtest.Database(t)
	startPGReplica(t, db, func(c *server.Config) {
		c.Repos = []server.RepoConfig{{Name: repo, Review: server.ReviewRequired}}
	})
	var logs syncBuffer
	two := servertest.StartPostgres(t, db, servertest.WithLogger(slog.New(slog.NewJSONHandler(&logs, nil))))
	r := do(t, two.URL, req{method: http.MethodPut, repo: repo, token: two.Token, body: putBody(t, map[string]string{"a.md": "a"})})
	var pr api.PutResponse
	decode(t, r, &pr)
	if r.status != http.StatusOK || pr.Review == nil {
		t.Fatalf("PUT through the replica without the review entry = %d %s, want a proposal", r.status, r.body)
	}
	if got := do(t, two.URL, req{repo: repo, token: two.Token}); got.status != http.StatusNotFound {
		t.Errorf("GET after the held write = %d %s, want 404: nothing stored", got.status, got.body)
	}
	if !strings.Contains(logs.String(), "settings differ") {
		t.Errorf("the second replica's log does not say the settings differ:\n%s", logs.String())
	}
	if m := do(t, two.URL, req{path: "/metrics"}); !strings.Contains(string(m.body), "teammemd_replica_settings_differing 1") {
		t.Errorf("/metrics = %d, want teammemd_replica_settings_differing 1", m.status)
	}
	if other := do(t, two.URL, req{method: http.MethodPut, repo: "acme/other", token: two.Token, body: putBody(t, map[string]string{"a.md": "a"})}); other.status != http.StatusOK || strings.Contains(string(other.body), `"review"`) {
		t.Errorf("PUT to a repo no replica reviews = %d %s, want it stored", other.status, other.body)
	}
}
