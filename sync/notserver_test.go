package memsync

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/teammemd/teammemd/server/servertest"
)

// notServerURLs returns server URLs that do not lead to a teammemd server,
// each over loopback: another web server, a server that implements nothing,
// one answering a page for every path, a real teammemd server under an
// extra path, and https:// against a plain-HTTP teammemd server.
func notServerURLs(t *testing.T) map[string]string {
	t.Helper()
	files := t.TempDir()
	if err := os.WriteFile(filepath.Join(files, "index.html"), []byte("<html>hello</html>"), 0o644); err != nil {
		t.Fatal(err)
	}
	fileServer := httptest.NewServer(http.FileServer(http.Dir(files)))
	t.Cleanup(fileServer.Close)
	notImpl := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "Not Implemented", http.StatusNotImplemented)
	}))
	t.Cleanup(notImpl.Close)
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<!doctype html><title>welcome</title>"))
	}))
	t.Cleanup(page.Close)
	emptyJSON := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte("{}"))
	}))
	t.Cleanup(emptyJSON.Close)
	srv := servertest.Start(t)
	return map[string]string{
		"file server":        fileServer.URL,
		"501 server":         notImpl.URL,
		"html for all paths": page.URL,
		"empty JSON":         emptyJSON.URL,
		"extra path":         srv.URL + "/api",
		"https against http": strings.Replace(srv.URL, "http://", "https://", 1),
	}
}

func TestClientDetectsNotATeammemdServer(t *testing.T) {
	ctx := context.Background()
	for name, url := range notServerURLs(t) {
		c, err := NewClient(url, oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "tmd_x"}),
			WithRetry(2, 10*time.Millisecond, 20*time.Millisecond))
		if err != nil {
			t.Fatal(err)
		}
		calls := map[string]func() error{
			"Get":    func() error { _, _, err := c.Get(ctx, "acme/app", ""); return err },
			"Hashes": func() error { _, err := c.Hashes(ctx, "acme/app"); return err },
			"Wait":   func() error { _, _, err := c.Wait(ctx, "acme/app", "sha256:00", time.Second); return err },
			"Put":    func() error { _, err := c.Put(ctx, "acme/app", "", []byte(`{"entries":{}}`)); return err },
		}
		for op, call := range calls {
			err := call()
			var ns *NotServerError
			if !errors.As(err, &ns) {
				t.Errorf("%s: %s() = %v, want a *NotServerError", name, op, err)
			}
			want := "does not answer as a teammemd server"
			if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "check the server URL") {
				t.Errorf("%s: %s() = %v, want an error saying %q with the hint", name, op, err, want)
			}
		}
	}
}
