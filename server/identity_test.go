package server

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/store/sqlite"
)

// TestStoreIDHeader names the store's identity on every response: the team
// memory routes (answered, refused or failing), history, discovery and the
// health routes. A new identity shows once identityRefresh has passed.
func TestStoreIDHeader(t *testing.T) {
	s, tok := newInternal(t, Config{}, Options{})
	var now atomic.Int64
	now.Store(time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC).UnixNano())
	s.now = func() time.Time { return time.Unix(0, now.Load()) }
	st := s.store.Store.(*sqlite.Store)
	want, err := st.StoreID(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	requests := []struct {
		name, token, method, target, body string
		code                              int
	}{
		{"GET of a repo never written", tok, http.MethodGet, target, "", http.StatusNotFound},
		{"PUT", tok, http.MethodPut, target, `{"entries":{"a.md":"a"}}`, http.StatusOK},
		{"GET", tok, http.MethodGet, target, "", http.StatusOK},
		{"hash probe", tok, http.MethodGet, target + "&view=hashes", "", http.StatusOK},
		{"change wait", tok, http.MethodGet, target + "&view=hashes&wait=1", "", http.StatusOK},
		{"bad token", "tmd_nope", http.MethodGet, target, "", http.StatusUnauthorized},
		{"bad method", tok, http.MethodPost, target, "", http.StatusMethodNotAllowed},
		{"history", tok, http.MethodGet, api.HistoryPath + "?repo=acme%2Fapp&key=a.md", "", http.StatusOK},
		{"discovery", "", http.MethodGet, api.DiscoveryPath, "", http.StatusOK},
		{"livez", "", http.MethodGet, "/livez", "", http.StatusOK},
		{"readyz", "", http.MethodGet, "/readyz", "", http.StatusOK},
		{"no such route", "", http.MethodGet, "/nowhere", "", http.StatusNotFound},
	}
	for _, rq := range requests {
		w := call(s, rq.token, rq.method, rq.target, rq.body)
		if w.Code != rq.code || w.Header().Get(api.StoreIDHeader) != want {
			t.Errorf("%s = %d with %s %q, want %d with %q", rq.name, w.Code, api.StoreIDHeader, w.Header().Get(api.StoreIDHeader), rq.code, want)
		}
	}
	fresh, err := st.NewStoreID(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := call(s, tok, http.MethodGet, target, "").Header().Get(api.StoreIDHeader); got != want {
		t.Errorf("%s right after new-store-id = %q, want the identity read before, %q", api.StoreIDHeader, got, want)
	}
	now.Add(int64(identityRefresh))
	if got := call(s, tok, http.MethodGet, target, "").Header().Get(api.StoreIDHeader); got != fresh {
		t.Errorf("%s %s after new-store-id = %q, want %q", api.StoreIDHeader, identityRefresh, got, fresh)
	}
}
