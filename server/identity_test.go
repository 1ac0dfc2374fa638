package server

import (
	"context"
	"log/slog"
	"net/http"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/auth"
	"github.com/teammemd/teammemd/server/store/sqlite"
)

// TestStoreIDHeader names the store's identity on every response: the team
// memory routes (answered, refused or failing), history, discovery, the
// health routes, the metrics and the web view's redirect. A new identity
// shows once identityRefresh has passed.
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
		{"metrics", "", http.MethodGet, "/metrics", "", http.StatusOK},
		{"the web view without its slash", "", http.MethodGet, "/ui", "", http.StatusSeeOther},
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

// countedIdentity is a store identity that counts its reads.
type countedIdentity struct {
	id    atomic.Value // string
	reads atomic.Int32
}

func (c *countedIdentity) StoreID(context.Context) (string, error) {
	c.reads.Add(1)
	return c.id.Load().(string), nil
}

// TestStoreIDWatched checks that while the server watches its store (as
// while it serves), the identity is read every storeWatchEvery and no
// request reads it, however old the last read; once the watch ends, a
// request reads a stale identity again.
func TestStoreIDWatched(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := &countedIdentity{}
		src.id.Store("one")
		var late atomic.Bool // the clock requests see, an hour ahead
		c := &storeIdentity{src: src, now: func() time.Time {
			if late.Load() {
				return time.Now().Add(time.Hour)
			}
			return time.Now()
		}}
		s := &Server{identity: c, auth: allowAll{}, log: slog.New(slog.DiscardHandler), watchWake: make(chan struct{}, 1)}
		stop := runStoreWatch(s)
		synctest.Wait()
		late.Store(true)
		if got := c.get(context.Background()); got != "one" || src.reads.Load() != 1 {
			t.Errorf("get() = %q after %d reads, want one after the watch's one read", got, src.reads.Load())
		}
		src.id.Store("two")
		time.Sleep(storeWatchEvery)
		synctest.Wait()
		if got := c.get(context.Background()); got != "two" || src.reads.Load() != 2 {
			t.Errorf("get() %v later = %q after %d reads, want two after the watch's two reads", storeWatchEvery, got, src.reads.Load())
		}
		stop()
		src.id.Store("three")
		time.Sleep(identityRefresh)
		if got := c.get(context.Background()); got != "three" {
			t.Errorf("get() with the watch over and the last read stale = %q, want three", got)
		}
	})
}

// allowAll is an authenticator that accepts anything and checks no
// revocation.
type allowAll struct{}

func (allowAll) Authenticate(context.Context, string) (auth.Principal, error) {
	return auth.Principal{Subject: "anyone"}, nil
}
