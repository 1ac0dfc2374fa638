package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/auth"
	"github.com/teammemd/teammemd/server/store"
	"github.com/teammemd/teammemd/server/store/sqlite"
)

// fillInternal caps s's SQLite database at the pages it holds and PUTs
// new keys until one is refused, which it returns.
func fillInternal(t *testing.T, s *Server, token string) *http.Response {
	t.Helper()
	if _, err := s.store.Store.(*sqlite.Store).LimitPages(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
	value := strings.Repeat("x", 6000)
	for i := range 2000 {
		w := call(s, token, http.MethodPut, "/api/claude_code/team_memory?repo=acme/full",
			fmt.Sprintf(`{"entries":{"n%d.md":%q}}`, i, value))
		if w.Code != http.StatusOK {
			return w.Result()
		}
	}
	t.Fatal("2000 writes fitted under the page cap")
	return nil
}

// /readyz answers 503 after a write refused for a full storage only for
// fullRecheck, with a Retry-After of what is left of it: then it lets a
// load balancer send writes again, and the next refusal makes it 503
// again.
func TestReadyzTriesWritesAgainAfterFullRecheck(t *testing.T) {
	s, token := newInternal(t, Config{}, Options{})
	if resp := fillInternal(t, s, token); resp.StatusCode != http.StatusInsufficientStorage {
		t.Fatalf("PUT past the page cap = %d, want 507", resp.StatusCode)
	}
	w := call(s, "", http.MethodGet, "/readyz", "")
	retry, _ := strconv.Atoi(w.Header().Get("Retry-After"))
	if w.Code != http.StatusServiceUnavailable || retry < 1 || retry > int(fullRecheck/time.Second) {
		t.Fatalf("GET /readyz after the refusal = %d, Retry-After %q; want 503 within %s", w.Code, w.Header().Get("Retry-After"), fullRecheck)
	}

	s.now = func() time.Time { return time.Now().Add(fullRecheck) }
	if w := call(s, "", http.MethodGet, "/readyz", ""); w.Code != http.StatusOK {
		t.Fatalf("GET /readyz %s after the refusal = %d %s, want 200", fullRecheck, w.Code, w.Body)
	}
	s.now = time.Now
	w = call(s, token, http.MethodPut, "/api/claude_code/team_memory?repo=acme/full",
		fmt.Sprintf(`{"entries":{"again.md":%q}}`, strings.Repeat("y", 6000)))
	if w.Code != http.StatusInsufficientStorage {
		t.Fatalf("PUT still past the page cap = %d, want 507", w.Code)
	}
	if w := call(s, "", http.MethodGet, "/readyz", ""); w.Code != http.StatusServiceUnavailable {
		t.Errorf("GET /readyz after another refusal = %d, want 503", w.Code)
	}
}

// A write through the MCP tools that the store has no room for is
// refused with the PUT's 507, which the tools word for the agent, not
// with the store's error.
func TestMCPWriteRefusedForFullStorage(t *testing.T) {
	s, token := newInternal(t, Config{}, Options{})
	fillInternal(t, s, token)
	c := &Caller{s: s, p: auth.Principal{Subject: "tester", Grants: []store.Grant{{Pattern: "**", Level: store.LevelWrite}}}}
	_, err := c.Write(context.Background(), "acme/full", api.PutRequest{Entries: map[string]string{"mcp.md": strings.Repeat("z", 6000)}}, "")
	var ae *api.Error
	if !errors.As(err, &ae) || ae.Status != http.StatusInsufficientStorage || ae.Code != api.CodeStorageFull {
		t.Fatalf("Caller.Write() on a full storage error = %v; want the 507 %s", err, api.CodeStorageFull)
	}
}
