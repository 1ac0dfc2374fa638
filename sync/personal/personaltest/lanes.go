// Package personaltest gives tests the personal lane's routes (PROTOCOL.md
// section 16) in front of the real server: the key routes, and the lane
// routes carried to the team route of the real server and store, where
// lane L of the one test subject is repo personal/L. The key header and
// the key check of a write are as the protocol has them.
package personaltest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync"
	"testing"

	"github.com/teammemd/teammemd/server/api"
)

// Lanes serves the personal lane's routes of one subject.
type Lanes struct {
	// URL is the base URL the lane routes are served at; every other
	// route goes to the server behind.
	URL string

	mu  sync.Mutex
	key *api.KeyEnvelope
	up  *url.URL
}

// Serve starts the lane routes in front of the server at upstream, until
// the test ends.
func Serve(t testing.TB, upstream string) *Lanes {
	t.Helper()
	up, err := url.Parse(upstream)
	if err != nil {
		t.Fatalf("personaltest: %v", err)
	}
	l := &Lanes{up: up}
	srv := httptest.NewServer(l)
	t.Cleanup(srv.Close)
	l.URL = srv.URL
	return l
}

// SetKey makes id the subject's current key, as a rotation or an init on
// another machine does.
func (l *Lanes) SetKey(id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.key = &api.KeyEnvelope{KeyID: id, Envelope: "-----BEGIN AGE ENCRYPTED FILE-----"}
}

func (l *Lanes) current() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.key == nil {
		return ""
	}
	return l.key.KeyID
}

func (l *Lanes) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	cur := l.current()
	if cur != "" {
		w.Header().Set(api.PersonalKeyHeader, cur)
	}
	switch r.URL.Path {
	case api.PersonalKeyPath:
		l.keyRoute(w, r)
	case api.PersonalPath:
		l.laneRoute(w, r, cur)
	default:
		l.proxy(w, r)
	}
}

func (l *Lanes) keyRoute(w http.ResponseWriter, r *http.Request) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case r.Method == http.MethodGet && l.key == nil:
		writeError(w, http.StatusNotFound, api.CodePersonalNotInitialized)
	case r.Method == http.MethodGet:
		json.NewEncoder(w).Encode(l.key)
	case r.Method == http.MethodPut:
		var env api.KeyEnvelope
		if err := json.NewDecoder(r.Body).Decode(&env); err != nil || !api.ValidKeyID(env.KeyID) {
			writeError(w, http.StatusBadRequest, api.CodeInvalidRequest)
			return
		}
		create := r.Header.Get("If-None-Match") == "*"
		if (create && l.key != nil) || (!create && (l.key == nil || api.StripETag(r.Header.Get("If-Match")) != l.key.KeyID)) {
			writeError(w, http.StatusPreconditionFailed, api.CodePrecondition)
			return
		}
		l.key = &env
		w.Header().Set(api.PersonalKeyHeader, env.KeyID)
		json.NewEncoder(w).Encode(env)
	default:
		writeError(w, http.StatusMethodNotAllowed, api.CodeInvalidRequest)
	}
}

func (l *Lanes) laneRoute(w http.ResponseWriter, r *http.Request, cur string) {
	lane := r.URL.Query().Get(api.ParamLane)
	if !api.ValidLaneID(lane) {
		writeError(w, http.StatusBadRequest, api.CodeInvalidRequest)
		return
	}
	if r.Method != http.MethodGet {
		switch sent := r.Header.Get(api.PersonalKeyHeader); {
		case cur == "":
			writeError(w, http.StatusConflict, api.CodePersonalNotInitialized)
			return
		case sent != cur:
			writeError(w, http.StatusConflict, api.CodePersonalKeyChanged)
			return
		}
	}
	q := r.URL.Query()
	q.Del(api.ParamLane)
	q.Set(api.ParamRepo, "personal/"+lane)
	r.URL.Path, r.URL.RawQuery = api.Path, q.Encode()
	l.proxy(w, r)
}

func (l *Lanes) proxy(w http.ResponseWriter, r *http.Request) {
	p := &httputil.ReverseProxy{Rewrite: func(pr *httputil.ProxyRequest) { pr.SetURL(l.up) }}
	p.ServeHTTP(w, r)
}

func writeError(w http.ResponseWriter, status int, code string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(api.NewError(status, code, http.StatusText(status)).Envelope())
}
