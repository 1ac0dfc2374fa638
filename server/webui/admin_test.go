package webui_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/server/servertest"
	"github.com/teammemd/teammemd/server/store"
)

func TestAuditAndPurgeAdminsOnly(t *testing.T) {
	srv := startServer(t)
	put(t, srv, srv.Token, "acme/app", map[string]string{"a.md": "leaked AKIA secret"})
	put(t, srv, srv.Token, "acme/app", map[string]string{"a.md": "clean"})
	user := signedIn(t, srv, "quinn", grant("**", store.LevelWrite))
	missing := user.get("/ui/repo?repo=nobody/none")
	for _, path := range []string{"/ui/audit", "/ui/audit?repo=acme/app", "/ui/purge?repo=acme/app&key=a.md"} {
		if p := user.get(path); p.status != http.StatusNotFound || p.body != missing.body {
			t.Errorf("a non-admin's GET %s = %d, want the 404 of a missing page", path, p.status)
		}
	}
	csrf := user.get("/ui/").csrf(t)
	if p := user.post("/ui/purge", url.Values{"csrf": {csrf}, "repo": {"acme/app"}, "key": {"a.md"},
		"version": {"1"}, "reason": {"x"}, "confirm": {"1"}}); p.status != http.StatusNotFound {
		t.Errorf("a non-admin's purge = %d, want 404", p.status)
	}

	a := signedIn(t, srv, admin, grant("**", store.LevelRead))
	form := a.get("/ui/purge?repo=acme/app&key=a.md")
	if form.status != http.StatusOK || !strings.Contains(form.body, "version 1") {
		t.Fatalf("purge form = %d:\n%s", form.status, form.body)
	}
	purge := url.Values{"csrf": {form.csrf(t)}, "repo": {"acme/app"}, "key": {"a.md"}, "version": {"1"}, "reason": {"leaked key, rotated"}}
	if p := a.post("/ui/purge", purge); p.status != http.StatusBadRequest || !strings.Contains(p.body, "gone for good") {
		t.Errorf("purge without confirming = %d, want 400 asking to confirm", p.status)
	}
	purge.Set("csrf", "")
	purge.Set("confirm", "1")
	if p := a.post("/ui/purge", purge); p.status != http.StatusForbidden {
		t.Errorf("purge without the anti-forgery token = %d, want 403", p.status)
	}
	purge.Set("csrf", form.csrf(t))
	purge.Set("version", "2")
	if p := a.post("/ui/purge", purge); p.status != http.StatusConflict {
		t.Errorf("purge of the live revision without saying so = %d, want 409", p.status)
	}
	purge.Set("version", "1")
	p := a.post("/ui/purge", purge)
	if p.status != http.StatusOK || !strings.Contains(p.body, "purged") || !strings.Contains(p.body, "leaked key, rotated") {
		t.Fatalf("purge = %d at %s, want the audit with the purge:\n%s", p.status, p.url, p.body)
	}
	recs, err := srv.Store.Purges(context.Background(), "acme/app")
	if err != nil || len(recs) != 1 || recs[0].Actor != admin || recs[0].Versions[0] != 1 {
		t.Errorf("Purges() = %+v, %v, want version 1 purged by %s", recs, err, admin)
	}
	if p := a.get("/ui/diff?repo=acme/app&key=a.md&from=1&to=2"); p.status != http.StatusNotFound {
		t.Errorf("diff with a purged version = %d, want 404", p.status)
	}
}

// A purge whose reason holds a secret (the key it purges, pasted in by
// mistake) is refused as a PUT with one is, and nothing is purged or kept
// in the audit log, which is never purged.
func TestPurgeReasonWithSecretRefused(t *testing.T) {
	const marker = "PURGE-SECRET-MARKER-99"
	srv := startServer(t, servertest.WithScanner(servertest.MarkerScanner(marker)))
	put(t, srv, srv.Token, "acme/app", map[string]string{"a.md": "one"})
	put(t, srv, srv.Token, "acme/app", map[string]string{"a.md": "two"})
	a := signedIn(t, srv, admin, grant("**", store.LevelRead))
	form := a.get("/ui/purge?repo=acme/app&key=a.md")
	p := a.post("/ui/purge", url.Values{"csrf": {form.csrf(t)}, "repo": {"acme/app"}, "key": {"a.md"}, "version": {"1"},
		"reason": {"leaked " + marker + ", rotated"}, "confirm": {"1"}})
	if p.status != http.StatusUnprocessableEntity || strings.Contains(p.body, marker) {
		t.Errorf("purge with a secret in its reason = %d, want 422 without the secret:\n%s", p.status, p.body)
	}
	if recs, err := srv.Store.Purges(context.Background(), "acme/app"); err != nil || len(recs) != 0 {
		t.Errorf("Purges() = %+v, %v, want none", recs, err)
	}
}
