package server_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server"
	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/servertest"
	"github.com/teammemd/teammemd/server/store"
)

// aliceLane is alice's lane in the isolation tests: what no one else may
// see any trace of.
type aliceLane struct {
	repo    string // the store's name of the lane
	traces  []string
	entries map[string]string
}

// writeAliceLane has alice write a lane of opaque values, and a team repo
// be written beside it.
func writeAliceLane(t *testing.T, base, alice, teamToken string) aliceLane {
	t.Helper()
	l := aliceLane{repo: store.PersonalRepo("alice", laneOne),
		entries: map[string]string{"0c1d2e3f4a5b6c7d8e9f.age": "Q0lQSEVSVEVYVA-opaque-alice-value"}}
	initKey(t, base, alice, keyOne)
	putLane(t, base, alice, laneOne, keyOne, l.entries)
	l.traces = []string{laneOne, strings.Split(l.repo, "/")[1], "0c1d2e3f4a5b6c7d8e9f", "Q0lQSEVSVEVYVA", keyOne, "~personal"}
	r := do(t, base, req{method: http.MethodPut, repo: "acme/app", token: teamToken, body: putBody(t, map[string]string{"team.md": "team"})})
	if r.status != http.StatusOK {
		t.Fatalf("PUT acme/app = %d %s", r.status, r.body)
	}
	return l
}

// noTrace fails the test when body holds any trace of alice's lane, but
// for an error's echo of the lane's store name that the request sent.
func (l aliceLane) noTrace(t *testing.T, what string, body []byte) {
	t.Helper()
	text := strings.ReplaceAll(string(body), `\"`+l.repo+`\"`, "")
	for _, tr := range l.traces {
		if strings.Contains(text, tr) {
			t.Errorf("%s holds %q of alice's lane: %.300s", what, tr, body)
		}
	}
}

// TestPersonalLaneIsolation checks that bob's token, admin tokens (every
// grant on every repo, review included), the metrics and the team routes
// get nothing of alice's lane: no entry, no lane ID, no size.
func TestPersonalLaneIsolation(t *testing.T) {
	s := servertest.Start(t)
	alice, bob := s.CreateToken(t, "alice"), s.CreateToken(t, "bob", store.Grant{Pattern: "**", Level: store.LevelWrite})
	admin := s.CreateToken(t, "admin", store.Grant{Pattern: "**", Level: store.LevelReview})
	l := writeAliceLane(t, s.URL, alice, s.Token)
	esc := url.QueryEscape(l.repo)
	for _, tt := range []struct {
		name string
		r    req
		want int
	}{
		{"bob reads the lane ID", laneReq(http.MethodGet, bob, laneOne, keyOne, ""), 404},
		{"bob's lanes", req{path: api.PersonalLanesPath, token: bob}, 200},
		{"bob's key", req{path: api.PersonalKeyPath, token: bob}, 404},
		{"bob writes the lane ID", laneReq(http.MethodPut, bob, laneOne, keyOne, putBody(t, map[string]string{"x": "y"})), 409},
		{"bob deletes the lane ID", laneReq(http.MethodDelete, bob, laneOne, keyOne, ""), 409},
		{"admin reads the lane as a repo", req{query: "repo=" + esc, token: admin}, 400},
		{"admin writes the lane as a repo", req{method: http.MethodPut, query: "repo=" + esc, token: admin, body: putBody(t, map[string]string{"x": "y"})}, 400},
		{"admin reads the lane's history", req{path: api.HistoryPath, query: "repo=" + esc, token: admin}, 400},
		{"admin lists the lane's proposals", req{path: api.ProposalsPath, query: "repo=" + esc, token: admin}, 400},
		{"admin lists proposals", req{path: api.ProposalsPath, token: admin}, 0},
		{"admin's own lanes", req{path: api.PersonalLanesPath, token: admin}, 200},
		{"metrics", req{path: "/metrics"}, 200},
		{"discovery", req{path: api.DiscoveryPath}, 0},
	} {
		r := do(t, s.URL, tt.r)
		if tt.want != 0 && r.status != tt.want {
			t.Errorf("%s = %d %s, want %d", tt.name, r.status, r.body, tt.want)
		}
		l.noTrace(t, tt.name, r.body)
		for k, v := range r.header {
			l.noTrace(t, tt.name+" header "+k, []byte(strings.Join(v, " ")))
		}
	}
	if got := readLane(t, s.URL, alice); got.Content.Entries["0c1d2e3f4a5b6c7d8e9f.age"] != l.entries["0c1d2e3f4a5b6c7d8e9f.age"] {
		t.Errorf("alice's lane after the others' requests = %v, want %v", got.Content.Entries, l.entries)
	}
}

// readLane reads alice's lane.
func readLane(t *testing.T, base, token string) api.FullResponse {
	t.Helper()
	r := do(t, base, laneReq(http.MethodGet, token, laneOne, keyOne, ""))
	var full api.FullResponse
	decode(t, r, &full)
	return full
}

// TestPersonalLaneHiddenFromMCP serves an MCP handler that asks the
// admitted caller for every repo it may read, and for the lane by its
// store name: an admin's token gets neither.
func TestPersonalLaneHiddenFromMCP(t *testing.T) {
	probe := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, ok := server.CallerFrom(r.Context())
		if !ok {
			http.Error(w, "no caller", http.StatusInternalServerError)
			return
		}
		repos, err := c.Repos(r.Context())
		fmt.Fprintf(w, "repos %v %v\n", repos, err)
		repo := r.URL.Query().Get("repo")
		notes, err := c.Notes(r.Context(), repo)
		fmt.Fprintf(w, "notes %v %v\n", notes.Content.Entries, err != nil)
		hist, err := c.History(r.Context(), repo, "", 10, true)
		fmt.Fprintf(w, "history %d %v\n", len(hist.Revisions), err != nil)
		_, err = c.Write(r.Context(), repo, api.PutRequest{Entries: map[string]string{"x": "y"}}, "")
		fmt.Fprintf(w, "write refused %v\n", err != nil)
	})
	s := servertest.Start(t, servertest.WithOptions(func(o *server.Options) { o.MCP = probe }))
	alice := s.CreateToken(t, "alice")
	admin := s.CreateToken(t, "admin", store.Grant{Pattern: "**", Level: store.LevelReview})
	l := writeAliceLane(t, s.URL, alice, s.Token)
	for token, repos := range map[string]string{admin: "[acme/app]", alice: "[]"} {
		r := do(t, s.URL, req{method: http.MethodPost, path: server.MCPPath, query: "repo=" + url.QueryEscape(l.repo), token: token, body: "{}"})
		if r.status != http.StatusOK || !strings.Contains(string(r.body), "repos "+repos+" <nil>") ||
			!strings.Contains(string(r.body), "write refused true") {
			t.Errorf("MCP probe = %d %s, want repos %s and the write refused", r.status, r.body, repos)
		}
		l.noTrace(t, "MCP probe", r.body)
	}
	snap, err := s.Store.Snapshot(context.Background(), l.repo, true)
	if err != nil || len(snap.Entries) != 1 {
		t.Errorf("alice's lane after the probes = %v, %v, want its one entry", snap.Entries, err)
	}
}

// TestPersonalLaneHiddenFromStoreListings reads every repo, every
// revision and the audit of every repo as the admin commands and the web
// view do: none holds alice's lane.
func TestPersonalLaneHiddenFromStoreListings(t *testing.T) {
	s := servertest.Start(t)
	l := writeAliceLane(t, s.URL, s.CreateToken(t, "alice"), s.Token)
	ctx := context.Background()
	repos, err := s.Store.Repos(ctx)
	if err != nil || fmt.Sprint(repos) != "[acme/app]" {
		t.Errorf("Repos() = %v, %v, want [acme/app]", repos, err)
	}
	revs, err := store.ListHistory(ctx, s.Store, store.HistoryQuery{})
	if err != nil || len(revs) != 1 || revs[0].Repo != "acme/app" {
		t.Errorf("History(every repo) = %+v, %v, want acme/app's one revision", revs, err)
	}
	events, err := store.Audit(ctx, s.Store, "", time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	l.noTrace(t, "audit of every repo", []byte(fmt.Sprintf("%+v", events)))
	purges, err := s.Store.Purges(ctx, "")
	if err != nil || len(purges) != 0 {
		t.Errorf("Purges() = %+v, %v, want none", purges, err)
	}
}
