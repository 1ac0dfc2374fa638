package memsync

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"golang.org/x/oauth2"

	"github.com/teammemd/teammemd/server/api"
)

// keyServer speaks the personal key routes of PROTOCOL.md section 16 for
// one subject, and records the lane requests it gets.
type keyServer struct {
	mu    sync.Mutex
	key   *api.KeyEnvelope
	lanes []*http.Request // lane requests, in order
}

func (s *keyServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.key != nil {
		w.Header().Set(api.PersonalKeyHeader, s.key.KeyID)
	}
	switch {
	case r.URL.Path == api.PersonalKeyPath && r.Method == http.MethodGet:
		if s.key == nil {
			writeErr(w, http.StatusNotFound, api.CodePersonalNotInitialized)
			return
		}
		w.Header().Set("ETag", api.ETag(s.key.KeyID))
		json.NewEncoder(w).Encode(s.key)
	case r.URL.Path == api.PersonalKeyPath && r.Method == http.MethodPut:
		s.putKey(w, r)
	case r.URL.Path == api.PersonalLanesPath:
		json.NewEncoder(w).Encode(api.LanesResponse{KeyID: s.key.KeyID, Lanes: []api.LaneInfo{}})
	case r.URL.Path == api.PersonalPath:
		s.lanes = append(s.lanes, r)
		s.lane(w, r)
	default:
		writeErr(w, http.StatusNotFound, api.CodeNotFound)
	}
}

func (s *keyServer) putKey(w http.ResponseWriter, r *http.Request) {
	var env api.KeyEnvelope
	if err := json.NewDecoder(r.Body).Decode(&env); err != nil {
		writeErr(w, http.StatusBadRequest, "bad_json")
		return
	}
	create := r.Header.Get("If-None-Match") == "*"
	match := api.StripETag(r.Header.Get("If-Match"))
	switch {
	case create && s.key != nil, !create && (s.key == nil || match != s.key.KeyID):
		writeErr(w, http.StatusPreconditionFailed, "precondition_failed")
		return
	}
	s.key = &env
	w.Header().Set(api.PersonalKeyHeader, env.KeyID)
	json.NewEncoder(w).Encode(env)
}

func (s *keyServer) lane(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodDelete:
		w.WriteHeader(http.StatusNoContent)
	case r.Method == http.MethodPut && (s.key == nil || r.Header.Get(api.PersonalKeyHeader) != s.key.KeyID):
		writeErr(w, http.StatusConflict, api.CodePersonalKeyChanged)
	case r.Method == http.MethodPut:
		io.Copy(io.Discard, r.Body)
		w.Write([]byte(`{"repo":"` + r.URL.Query().Get(api.ParamLane) + `","version":1,"checksum":"sha256:01"}`))
	default:
		w.Write([]byte(hashesBody))
	}
}

func writeErr(w http.ResponseWriter, status int, code string) {
	w.WriteHeader(status)
	w.Write([]byte(`{"type":"error","error":{"type":"x","message":"m","details":{"error_code":"` + code + `"}}}`))
}

func newKeyClient(t *testing.T, h http.Handler) *Client {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	c, err := NewClient(srv.URL, oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "t"}), WithRetry(0, 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestPersonalKeyRoutes creates, reads and replaces the key with the
// preconditions the protocol asks for, and records the answer's key ID.
func TestPersonalKeyRoutes(t *testing.T) {
	ctx := context.Background()
	c := newKeyClient(t, &keyServer{})
	_, err := c.PersonalKey(ctx)
	var ae *api.Error
	if !errors.As(err, &ae) || ae.Status != http.StatusNotFound || ae.Code != api.CodePersonalNotInitialized {
		t.Fatalf("PersonalKey() before init = %v, want a 404 %s", err, api.CodePersonalNotInitialized)
	}
	k1 := api.KeyEnvelope{KeyID: strings.Repeat("a", 32), Envelope: "one"}
	if got, err := c.PutPersonalKey(ctx, k1, ""); err != nil || got.KeyID != k1.KeyID {
		t.Fatalf("PutPersonalKey(create) = %+v, %v", got, err)
	}
	if _, err := c.PutPersonalKey(ctx, k1, ""); !errors.As(err, &ae) || ae.Status != http.StatusPreconditionFailed {
		t.Fatalf("PutPersonalKey(create again) = %v, want 412", err)
	}
	k2 := api.KeyEnvelope{KeyID: strings.Repeat("b", 32), Envelope: "two"}
	if _, err := c.PutPersonalKey(ctx, k2, strings.Repeat("c", 32)); !errors.As(err, &ae) || ae.Status != http.StatusPreconditionFailed {
		t.Fatalf("PutPersonalKey(replace, wrong If-Match) = %v, want 412", err)
	}
	if _, err := c.PutPersonalKey(ctx, k2, k1.KeyID); err != nil {
		t.Fatalf("PutPersonalKey(replace) = %v", err)
	}
	got, err := c.PersonalKey(ctx)
	if err != nil || got.KeyID != k2.KeyID || got.Envelope != "two" {
		t.Fatalf("PersonalKey() = %+v, %v, want the replaced key", got, err)
	}
	if id := c.PersonalKeyID(); id != k2.KeyID {
		t.Errorf("PersonalKeyID() = %q, want %q", id, k2.KeyID)
	}
	if l, err := c.PersonalLanes(ctx); err != nil || l.KeyID != k2.KeyID {
		t.Errorf("PersonalLanes() = %+v, %v", l, err)
	}
}

// TestPersonalLaneRoutes sends the lane and the key ID with every lane
// request, and a write under another key is the 409 the protocol names.
func TestPersonalLaneRoutes(t *testing.T) {
	ctx := context.Background()
	cur := strings.Repeat("a", 32)
	srv := &keyServer{key: &api.KeyEnvelope{KeyID: cur, Envelope: "e"}}
	c := newKeyClient(t, srv)
	lane := strings.Repeat("1", 32)
	if _, _, err := c.PersonalGet(ctx, lane, cur, ""); err != nil {
		t.Fatalf("PersonalGet() = %v", err)
	}
	if _, err := c.PersonalHashes(ctx, lane, cur); err != nil {
		t.Fatalf("PersonalHashes() = %v", err)
	}
	if _, err := c.PersonalPut(ctx, lane, cur, "sha256:00", []byte(`{"entries":{}}`)); err != nil {
		t.Fatalf("PersonalPut() = %v", err)
	}
	_, err := c.PersonalPut(ctx, lane, strings.Repeat("d", 32), "", []byte(`{"entries":{}}`))
	var ae *api.Error
	if !errors.As(err, &ae) || ae.Status != http.StatusConflict || ae.Code != api.CodePersonalKeyChanged {
		t.Fatalf("PersonalPut(old key) = %v, want 409 %s", err, api.CodePersonalKeyChanged)
	}
	if err := c.DeletePersonalLane(ctx, lane, cur); err != nil {
		t.Fatalf("DeletePersonalLane() = %v", err)
	}
	for i, r := range srv.lanes {
		if got := r.URL.Query().Get(api.ParamLane); got != lane {
			t.Errorf("request %d lane = %q, want %q", i, got, lane)
		}
		if r.Header.Get(api.PersonalKeyHeader) == "" {
			t.Errorf("request %d (%s) sent no %s", i, r.Method, api.PersonalKeyHeader)
		}
	}
	if q := srv.lanes[1].URL.Query(); q.Get(api.ParamView) != api.ViewHashes {
		t.Errorf("hash probe query = %v, want view=%s", q, api.ViewHashes)
	}
	if m := srv.lanes[2].Header.Get("If-Match"); m != api.ETag("sha256:00") {
		t.Errorf("push If-Match = %q", m)
	}
	if c.PersonalKeyID() != cur {
		t.Errorf("PersonalKeyID() = %q, want %q", c.PersonalKeyID(), cur)
	}
}
