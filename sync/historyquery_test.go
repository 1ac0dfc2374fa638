package memsync

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/servertest"
)

// historyProxy serves a loopback reverse proxy to srv that records the
// query of every history request.
func historyProxy(t *testing.T, srv *servertest.Server) (*httptest.Server, func() []url.Values) {
	target, _ := url.Parse(srv.URL)
	rp := httputil.NewSingleHostReverseProxy(target)
	var mu sync.Mutex
	var queries []url.Values
	ps := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, api.HistoryPath) {
			mu.Lock()
			queries = append(queries, r.URL.Query())
			mu.Unlock()
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(ps.Close)
	return ps, func() []url.Values {
		mu.Lock()
		defer mu.Unlock()
		out := queries
		queries = nil
		return out
	}
}

// TestHistoryAsksForContentOnlyWhereNeeded: listing a history asks for no
// content; one revision's content comes alone, one revision asked for.
func TestHistoryAsksForContentOnlyWhereNeeded(t *testing.T) {
	srv := servertest.Start(t)
	ps, queries := historyProxy(t, srv)
	a := newPeer(t, ps.URL, srv.Token, nil)
	for _, v := range []string{"first\n", "second\n", "third\n"} {
		a.write(t, "deploy.md", v)
		a.sync(t)
	}
	queries()
	ctx := context.Background()
	for _, key := range []string{"deploy.md", ""} {
		revs, err := a.eng.History(ctx, key)
		if err != nil || len(revs) != 3 {
			t.Fatalf("History(%q) = %d revisions, %v; want 3", key, len(revs), err)
		}
		for _, q := range queries() {
			if got := q.Get(api.ParamContent); got != "false" {
				t.Errorf("History(%q) asked with content=%q, want false", key, got)
			}
		}
	}
	revs, _ := a.eng.History(ctx, "deploy.md")
	queries()
	rev, err := a.eng.Revision(ctx, "deploy.md", revs[2].Version)
	if err != nil || rev.Content == nil || *rev.Content != "first\n" {
		t.Fatalf("Revision(deploy.md, %d) = %+v, %v; want first", revs[2].Version, rev, err)
	}
	qs := queries()
	if len(qs) != 1 || qs[0].Get(api.ParamLimit) != "1" || qs[0].Get(api.ParamContent) == "false" {
		t.Errorf("Revision asked %v, want one request for one revision with its content", qs)
	}
	rev, err = a.eng.RestorePoint(ctx, "deploy.md", 0)
	if err != nil || rev.Content == nil || *rev.Content != "second\n" {
		t.Fatalf("RestorePoint(deploy.md, 0) = %+v, %v; want second", rev, err)
	}
	withContent := 0
	for _, q := range queries() {
		if q.Get(api.ParamContent) != "false" {
			withContent++
			if q.Get(api.ParamLimit) != "1" {
				t.Errorf("RestorePoint asked %v, want content of one revision only", q)
			}
		}
	}
	if withContent != 1 {
		t.Errorf("RestorePoint asked for content %d times, want once", withContent)
	}
}

// TestHistoryPageOlderServer: a server that ignores content=false sends
// the content; the page leaves it out and keeps its size.
func TestHistoryPageOlderServer(t *testing.T) {
	c := fixedServer(t, http.StatusOK, historyBody("ann", "abc"))
	page, err := c.HistoryPage(context.Background(), testRepo, HistoryRequest{Key: "a.md", Limit: 10, NoContent: true})
	if err != nil || len(page.Revisions) != 1 {
		t.Fatalf("HistoryPage = %+v, %v; want one revision", page, err)
	}
	if r := page.Revisions[0]; r.Content != nil || r.Size == nil || *r.Size != 3 {
		t.Errorf("HistoryPage revision = content %v, size %v; want no content, size 3", r.Content, r.Size)
	}
}
