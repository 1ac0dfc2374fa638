package webui_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/store"
)

// A restore the store has no room for is answered with the API's 507,
// saying the storage is full, not as a fault of the server, and changes
// nothing.
func TestRestoreRefusedForFullStorage(t *testing.T) {
	srv := startServer(t)
	put(t, srv, srv.Token, "acme/app", map[string]string{"a.md": strings.Repeat("o", 6000)})
	put(t, srv, srv.Token, "acme/app", map[string]string{"a.md": "two"})
	b := signedIn(t, srv, "carol", grant("acme/**", store.LevelWrite))
	csrf := b.get("/ui/").csrf(t)

	ctx := context.Background()
	if _, err := srv.Store.LimitPages(ctx, 1); err != nil {
		t.Fatal(err)
	}
	for i := 0; ; i++ {
		if i == 2000 {
			t.Fatal("2000 writes fitted under the page cap")
		}
		_, err := srv.Store.Apply(ctx, store.Write{Repo: "acme/filler", Entries: map[string]string{fmt.Sprint(i, ".md"): strings.Repeat("x", 6000)},
			Subject: "seed", Time: time.Now()})
		if errors.Is(err, store.ErrFull) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}

	p := b.post("/ui/restore", url.Values{"csrf": {csrf}, "repo": {"acme/app"}, "key": {"a.md"}, "version": {"1"}})
	if p.status != http.StatusInsufficientStorage || !strings.Contains(p.body, "storage is full") {
		t.Errorf("POST /ui/restore on a full storage = %d, want 507 saying the storage is full:\n%s", p.status, p.body)
	}
	if got := entries(t, srv, "acme/app")["a.md"]; got != "two" {
		t.Errorf("a.md after the refused restore = %q, want two", got)
	}
}
