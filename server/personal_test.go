package server_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/server"
	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/servertest"
)

// Key and lane IDs of the personal lane tests.
const (
	keyOne  = "0123456789abcdef0123456789abcdef"
	keyTwo  = "fedcba9876543210fedcba9876543210"
	laneOne = "aaaabbbbccccddddeeeeffff00001111"
)

// laneReq is a request to the lane route of lane with the key header keyID
// (none when empty).
func laneReq(method, token, lane, keyID, body string, headers ...string) req {
	h := map[string]string{}
	if keyID != "" {
		h[api.PersonalKeyHeader] = keyID
	}
	for i := 0; i+1 < len(headers); i += 2 {
		h[headers[i]] = headers[i+1]
	}
	return req{method: method, path: api.PersonalPath, query: api.ParamLane + "=" + url.QueryEscape(lane), token: token, body: body, headers: h}
}

// keyBody is the body of a PUT on the key.
func keyBody(t testing.TB, keyID, envelope string) string {
	t.Helper()
	b, err := json.Marshal(api.KeyEnvelope{KeyID: keyID, Envelope: envelope})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// initKey creates the subject's key and fails the test unless it answers
// 200.
func initKey(t testing.TB, base, token, keyID string) {
	t.Helper()
	r := do(t, base, req{method: http.MethodPut, path: api.PersonalKeyPath, token: token,
		body:    keyBody(t, keyID, "-----BEGIN AGE ENCRYPTED FILE-----\nopaque\n-----END AGE ENCRYPTED FILE-----\n"),
		headers: map[string]string{"If-None-Match": "*"}})
	if r.status != http.StatusOK {
		t.Fatalf("PUT key = %d %s, want 200", r.status, r.body)
	}
}

// putLane writes entries to lane with keyID and fails the test unless it
// answers 200.
func putLane(t testing.TB, base, token, lane, keyID string, entries map[string]string, deletes ...string) api.PutResponse {
	t.Helper()
	r := do(t, base, laneReq(http.MethodPut, token, lane, keyID, putBody(t, entries, deletes...)))
	if r.status != http.StatusOK {
		t.Fatalf("PUT lane = %d %s, want 200", r.status, r.body)
	}
	var pr api.PutResponse
	decode(t, r, &pr)
	return pr
}

func TestPersonalKeyRoute(t *testing.T) {
	s := servertest.Start(t)
	alice := s.CreateToken(t, "alice")
	long := strings.Repeat("A", api.MaxEnvelopeBytes+1)
	tests := []struct {
		name       string
		method     string
		body       string
		headers    map[string]string
		wantStatus int
		wantCode   string
		wantKey    string // the key header and ETag of the answer
	}{
		{"get before init", http.MethodGet, "", nil, 404, api.CodePersonalNotInitialized, ""},
		{"put without precondition", http.MethodPut, keyBody(t, keyOne, "e"), nil, 428, api.CodePrecondition, ""},
		{"replace before init", http.MethodPut, keyBody(t, keyOne, "e"), map[string]string{"If-Match": `"` + keyOne + `"`}, 412, api.CodePrecondition, ""},
		{"bad key ID", http.MethodPut, keyBody(t, "ABC", "e"), map[string]string{"If-None-Match": "*"}, 400, api.CodeInvalidRequest, ""},
		{"empty envelope", http.MethodPut, keyBody(t, keyOne, ""), map[string]string{"If-None-Match": "*"}, 400, api.CodeInvalidRequest, ""},
		{"non-ASCII envelope", http.MethodPut, keyBody(t, keyOne, "é"), map[string]string{"If-None-Match": "*"}, 400, api.CodeInvalidRequest, ""},
		{"envelope too long", http.MethodPut, keyBody(t, keyOne, long), map[string]string{"If-None-Match": "*"}, 400, api.CodeInvalidRequest, ""},
		{"body too large", http.MethodPut, keyBody(t, keyOne, long+long), map[string]string{"If-None-Match": "*"}, 413, api.CodeBodyTooLarge, ""},
		{"unknown field", http.MethodPut, `{"keyId":"` + keyOne + `","envelope":"e","x":1}`, map[string]string{"If-None-Match": "*"}, 400, api.CodeInvalidRequest, ""},
		{"create", http.MethodPut, keyBody(t, keyOne, "e1"), map[string]string{"If-None-Match": "*"}, 200, "", keyOne},
		{"create again", http.MethodPut, keyBody(t, keyTwo, "e2"), map[string]string{"If-None-Match": "*"}, 412, api.CodePrecondition, keyOne},
		{"replace another", http.MethodPut, keyBody(t, keyTwo, "e2"), map[string]string{"If-Match": `"` + keyTwo + `"`}, 412, api.CodePrecondition, keyOne},
		{"get", http.MethodGet, "", nil, 200, "", keyOne},
		{"rotate", http.MethodPut, keyBody(t, keyTwo, "e2"), map[string]string{"If-Match": `"` + keyOne + `"`}, 200, "", keyTwo},
		{"get rotated", http.MethodGet, "", nil, 200, "", keyTwo},
	}
	for _, tt := range tests {
		r := do(t, s.URL, req{method: tt.method, path: api.PersonalKeyPath, token: alice, body: tt.body, headers: tt.headers})
		if r.status != tt.wantStatus || r.errorCode() != tt.wantCode {
			t.Fatalf("%s: %s key = %d %q, want %d %q (%s)", tt.name, tt.method, r.status, r.errorCode(), tt.wantStatus, tt.wantCode, r.body)
		}
		if got := r.header.Get(api.PersonalKeyHeader); got != tt.wantKey {
			t.Errorf("%s: %s = %q, want %q", tt.name, api.PersonalKeyHeader, got, tt.wantKey)
		}
		if r.status == http.StatusOK {
			var env api.KeyEnvelope
			decode(t, r, &env)
			if env.KeyID != tt.wantKey || r.header.Get("ETag") != `"`+tt.wantKey+`"` || env.UpdatedAt.IsZero() {
				t.Errorf("%s: body %+v, ETag %s, want key %s with its time", tt.name, env, r.header.Get("ETag"), tt.wantKey)
			}
		}
	}
	if r := do(t, s.URL, req{path: api.PersonalKeyPath}); r.status != http.StatusUnauthorized {
		t.Errorf("GET key without a token = %d, want 401", r.status)
	}
}

func TestPersonalLaneRoute(t *testing.T) {
	s := servertest.Start(t, servertest.WithScanner(servertest.MarkerScanner("SECRETMARK")))
	alice := s.CreateToken(t, "alice")
	put := func(keyID, body string, headers ...string) reply {
		return do(t, s.URL, laneReq(http.MethodPut, alice, laneOne, keyID, body, headers...))
	}
	entries := map[string]string{"k1.age": "ciphertext SECRETMARK one", "k2.age": "ciphertext two"}
	steps := []struct {
		name       string
		r          func() reply
		wantStatus int
		wantCode   string
	}{
		{"put before init", func() reply { return put(keyOne, putBody(t, entries)) }, 409, api.CodePersonalNotInitialized},
		{"init", func() reply { initKey(t, s.URL, alice, keyOne); return reply{status: 200} }, 200, ""},
		{"put without key header", func() reply { return put("", putBody(t, entries)) }, 400, api.CodeInvalidRequest},
		{"put with another key", func() reply { return put(keyTwo, putBody(t, entries)) }, 409, api.CodePersonalKeyChanged},
		{"get after refused puts", func() reply { return do(t, s.URL, laneReq(http.MethodGet, alice, laneOne, keyOne, "")) }, 404, api.CodeNotFound},
		{"bad lane", func() reply { return do(t, s.URL, laneReq(http.MethodGet, alice, "Lane", keyOne, "")) }, 400, api.CodeInvalidRequest},
		{"invalid entry key", func() reply { return put(keyOne, putBody(t, map[string]string{"../x": "v"})) }, 400, api.CodeInvalidKey},
		{"put, not scanned", func() reply { return put(keyOne, putBody(t, entries), "If-Match", "*") }, 200, ""},
		{"stale if-match", func() reply { return put(keyOne, putBody(t, entries), "If-Match", `"`+api.EmptyRepoChecksum+`"`) }, 412, api.CodePrecondition},
		{"delete with another key", func() reply { return do(t, s.URL, laneReq(http.MethodDelete, alice, laneOne, keyTwo, "")) }, 409, api.CodePersonalKeyChanged},
	}
	for _, st := range steps {
		r := st.r()
		if r.status != st.wantStatus || (st.wantCode != "" && r.errorCode() != st.wantCode) {
			t.Fatalf("%s = %d %q, want %d %q (%s)", st.name, r.status, r.errorCode(), st.wantStatus, st.wantCode, r.body)
		}
		if r.header != nil && st.name != "put before init" && r.header.Get(api.PersonalKeyHeader) != keyOne {
			t.Errorf("%s: %s = %q, want %s", st.name, api.PersonalKeyHeader, r.header.Get(api.PersonalKeyHeader), keyOne)
		}
	}
	// A GET is answered whatever key it names; the bodies are the team
	// route's, with the lane as the repo.
	r := do(t, s.URL, laneReq(http.MethodGet, alice, laneOne, keyTwo, ""))
	var full api.FullResponse
	decode(t, r, &full)
	want := checksumOf(entries, nil)
	if r.status != 200 || full.Repo != laneOne || full.Checksum != want || full.Content.Entries["k1.age"] != entries["k1.age"] ||
		r.header.Get("ETag") != api.ETag(want) || r.header.Get(api.PersonalKeyHeader) != keyOne {
		t.Fatalf("GET lane = %d %+v, ETag %s, key %s; want lane %s at %s with key %s", r.status, full, r.header.Get("ETag"),
			r.header.Get(api.PersonalKeyHeader), laneOne, want, keyOne)
	}
	r = do(t, s.URL, laneReq(http.MethodGet, alice, laneOne, keyOne, "", "If-None-Match", api.ETag(want)))
	if r.status != http.StatusNotModified {
		t.Errorf("GET lane If-None-Match current = %d, want 304", r.status)
	}
	r = do(t, s.URL, req{path: api.PersonalPath, query: "lane=" + laneOne + "&view=hashes", token: alice,
		headers: map[string]string{api.PersonalKeyHeader: keyOne}})
	var hashes api.HashesResponse
	decode(t, r, &hashes)
	if hashes.Repo != laneOne || hashes.Checksum != want || len(hashes.EntryChecksums) != 2 {
		t.Errorf("GET lane hashes = %+v, want lane %s at %s", hashes, laneOne, want)
	}
	noop := putLane(t, s.URL, alice, laneOne, keyOne, entries)
	if noop.Version != full.Version || noop.Repo != laneOne {
		t.Errorf("no-op PUT = version %d repo %s, want version %d repo %s", noop.Version, noop.Repo, full.Version, laneOne)
	}
	if r := do(t, s.URL, laneReq(http.MethodDelete, alice, laneOne, keyOne, "")); r.status != http.StatusNoContent {
		t.Fatalf("DELETE lane = %d %s, want 204", r.status, r.body)
	}
	for _, method := range []string{http.MethodDelete, http.MethodGet} {
		if r := do(t, s.URL, laneReq(method, alice, laneOne, keyOne, "")); r.status != http.StatusNotFound {
			t.Errorf("%s dropped lane = %d %s, want 404", method, r.status, r.body)
		}
	}
}

func TestPersonalQuota(t *testing.T) {
	s := servertest.Start(t, servertest.WithConfig(func(c *server.Config) {
		c.Personal = server.Personal{MaxEntries: 3, MaxBytes: 20}
	}))
	alice := s.CreateToken(t, "alice")
	initKey(t, s.URL, alice, keyOne)
	laneTwo := strings.Repeat("2", api.LaneIDBytes)
	putLane(t, s.URL, alice, laneOne, keyOne, map[string]string{"a": "0123456789"})
	tests := []struct {
		name       string
		lane       string
		entries    map[string]string
		wantStatus int
	}{
		{"bytes over", laneTwo, map[string]string{"b": "01234567890"}, 413},
		{"entries over", laneTwo, map[string]string{"b": "1", "c": "2", "d": "3"}, 413},
		{"within", laneTwo, map[string]string{"b": "1", "c": "2"}, 200},
		{"one more", laneOne, map[string]string{"e": "x"}, 413},
		{"replace within", laneOne, map[string]string{"a": "short"}, 200},
	}
	for _, tt := range tests {
		r := do(t, s.URL, laneReq(http.MethodPut, alice, tt.lane, keyOne, putBody(t, tt.entries)))
		if r.status != tt.wantStatus {
			t.Fatalf("%s: PUT = %d %s, want %d", tt.name, r.status, r.body, tt.wantStatus)
		}
		if r.status == 413 && r.errorCode() != api.CodePersonalQuota {
			t.Errorf("%s: code %q, want %q", tt.name, r.errorCode(), api.CodePersonalQuota)
		}
	}
	r := do(t, s.URL, req{path: api.PersonalLanesPath, token: alice})
	var lanes api.LanesResponse
	decode(t, r, &lanes)
	wantQuota := api.Quota{MaxBytes: 20, MaxEntries: 3, UsedBytes: 7, UsedEntries: 3}
	if lanes.KeyID != keyOne || len(lanes.Lanes) != 2 || lanes.Quota != wantQuota || lanes.Lanes[0].Lane != laneTwo || lanes.Lanes[0].KeyID != keyOne {
		t.Errorf("GET lanes = %+v, want 2 lanes of key %s and quota %+v", lanes, keyOne, wantQuota)
	}
}

func TestPersonalDisabled(t *testing.T) {
	off := false
	s := servertest.Start(t, servertest.WithConfig(func(c *server.Config) { c.Personal.Enabled = &off }))
	alice := s.CreateToken(t, "alice")
	for _, r := range []req{
		{path: api.PersonalKeyPath, token: alice},
		{path: api.PersonalLanesPath, token: alice},
		laneReq(http.MethodPut, alice, laneOne, keyOne, putBody(t, map[string]string{"a": "b"})),
	} {
		if got := do(t, s.URL, r); got.status != http.StatusNotFound || got.errorCode() != api.CodePersonalDisabled {
			t.Errorf("%s %s = %d %q, want 404 %q", r.method, r.path, got.status, got.errorCode(), api.CodePersonalDisabled)
		}
	}
}

// TestPersonalChangeWait holds a change wait on a lane: a write answers it
// with the new hashes and the key, and dropping the lane answers it 404.
func TestPersonalChangeWait(t *testing.T) {
	s := servertest.Start(t)
	alice := s.CreateToken(t, "alice")
	initKey(t, s.URL, alice, keyOne)
	first := putLane(t, s.URL, alice, laneOne, keyOne, map[string]string{"a": "1"})
	wait := func(inm string) <-chan reply {
		ch := make(chan reply, 1)
		go func() {
			ch <- do(t, s.URL, req{path: api.PersonalPath, query: "lane=" + laneOne + "&view=hashes&wait=60", token: alice,
				headers: map[string]string{api.PersonalKeyHeader: keyOne, "If-None-Match": api.ETag(inm)}})
		}()
		return ch
	}
	answered := wait(first.Checksum)
	awaitWaiters(t, s, 1)
	second := putLane(t, s.URL, alice, laneOne, keyOne, map[string]string{"b": "2"})
	r := <-answered
	var h api.HashesResponse
	decode(t, r, &h)
	if r.status != 200 || h.Checksum != second.Checksum || h.Repo != laneOne || r.header.Get(api.PersonalKeyHeader) != keyOne {
		t.Errorf("change wait = %d %+v key %q, want lane %s at %s with key %s", r.status, h, r.header.Get(api.PersonalKeyHeader), laneOne, second.Checksum, keyOne)
	}
	answered = wait(second.Checksum)
	awaitWaiters(t, s, 1)
	if r := do(t, s.URL, laneReq(http.MethodDelete, alice, laneOne, keyOne, "")); r.status != http.StatusNoContent {
		t.Fatalf("DELETE lane = %d %s, want 204", r.status, r.body)
	}
	if r := <-answered; r.status != http.StatusNotFound {
		t.Errorf("change wait on a dropped lane = %d %s, want 404", r.status, r.body)
	}
}
