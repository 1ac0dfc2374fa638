package server_test

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/internal/lockedbuf"
	"github.com/teammemd/teammemd/server"
	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/auth"
	"github.com/teammemd/teammemd/server/servertest"
	"github.com/teammemd/teammemd/server/store/postgres"
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
	var logs lockedbuf.Buffer
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

// TestReplicaServesOnlyKnowingItsPeersSettings: a replica that cannot
// record its [[server.repo]] entries and read the other replicas' as it
// starts (here the table is out of its reach) does not serve, rather than
// store writes to a repo a live replica holds for review.
func TestReplicaServesOnlyKnowingItsPeersSettings(t *testing.T) {
	db := pgtest.Schema(t)
	one := startPGReplica(t, db, func(c *server.Config) {
		c.Repos = []server.RepoConfig{{Name: repo, Review: server.ReviewRequired}}
	})
	pgtest.Exec(t, db, "ALTER TABLE replica_settings RENAME TO replica_settings_away")
	ready := make(chan struct{})
	two := newPGServer(t, db, func(net.Addr) { close(ready) })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	served := make(chan error, 1)
	go func() { served <- two.Serve(ctx, ln) }()
	select {
	case err := <-served:
		if err == nil || !strings.Contains(err.Error(), "other replicas' [[server.repo]] settings") {
			t.Errorf("Serve() = %v, want an error naming the other replicas' settings", err)
		}
	case <-ready:
		put := do(t, "http://"+ln.Addr().String(), req{method: http.MethodPut, repo: repo, token: one.Token, body: putBody(t, map[string]string{"a.md": "a"})})
		cancel()
		<-served
		t.Errorf("Serve() served without the other replicas' settings: PUT = %d %s", put.status, put.body)
	}
}

// newPGServer returns a server with the test config on the database at
// dbURL, not yet serving, that calls ready once it serves.
func newPGServer(t *testing.T, dbURL string, ready func(net.Addr)) *server.Server {
	t.Helper()
	st, err := postgres.Open(context.Background(), dbURL, postgres.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	settings, err := servertest.Config().Settings()
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(server.Options{Store: st, Auth: auth.NewTokenAuthenticator(st), Settings: settings, Ready: ready})
	if err != nil {
		t.Fatal(err)
	}
	return srv
}
