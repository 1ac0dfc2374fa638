package server

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/auth"
	"github.com/teammemd/teammemd/server/store"
	"github.com/teammemd/teammemd/server/store/sqlite"
	"github.com/teammemd/teammemd/server/wake"
)

// newInternal returns a Server with the settings of cfg and opts on a real
// SQLite file, and a write token on every repo. The store closes when the
// test ends.
func newInternal(t testing.TB, cfg Config, opts Options) (*Server, string) {
	t.Helper()
	settings, err := cfg.Settings()
	if err != nil {
		t.Fatal(err)
	}
	opts.Settings = settings
	st, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), sqlite.FileName), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	secret, rec, err := auth.NewTokenRecord("tester", []store.Grant{{Pattern: "**", Level: store.LevelWrite}}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := st.CreateToken(t.Context(), rec); err != nil {
		t.Fatal(err)
	}
	opts.Store, opts.Auth = st, auth.NewTokenAuthenticator(st)
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return s, secret
}

// call runs one request through the handler.
func call(s *Server, token, method, target, body string, headers ...string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, target, strings.NewReader(body))
	r.Header.Set("Authorization", "Bearer "+token)
	for i := 0; i+1 < len(headers); i += 2 {
		r.Header.Set(headers[i], headers[i+1])
	}
	w := httptest.NewRecorder()
	s.Handler().ServeHTTP(w, r)
	return w
}

const target = api.Path + "?repo=acme%2Fapp"

// TestWaitTimesOut checks on a fake clock that a change wait answers 304
// after N seconds plus at most 10% jitter, and not before.
func TestWaitTimesOut(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, tok := newInternal(t, Config{Limits: api.Limits{MaxWait: 20 * time.Second}}, Options{})
		done := make(chan *httptest.ResponseRecorder, 1)
		go func() {
			done <- call(s, tok, "GET", target+"&view=hashes&wait=10", "", "If-None-Match", `"`+api.EmptyRepoChecksum+`"`)
		}()
		time.Sleep(10*time.Second - time.Millisecond)
		synctest.Wait()
		select {
		case w := <-done:
			t.Fatalf("wait=10 answered %d before 10 s", w.Code)
		default:
		}
		time.Sleep(time.Second + 2*time.Millisecond)
		synctest.Wait()
		select {
		case w := <-done:
			if w.Code != http.StatusNotModified || w.Header().Get("ETag") != api.ETag(api.EmptyRepoChecksum) {
				t.Errorf("timed-out wait = %d ETag %s, want 304 with the empty checksum", w.Code, w.Header().Get("ETag"))
			}
		default:
			t.Fatal("wait=10 still waiting after 11 s")
		}
	})
}

// TestWaitCappedAtMaxWait checks that a longer wait is cut to MaxWait.
func TestWaitCappedAtMaxWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, tok := newInternal(t, Config{Limits: api.Limits{MaxWait: 5 * time.Second}}, Options{})
		start := time.Now()
		w := call(s, tok, "GET", target+"&view=hashes&wait=3600", "", "If-None-Match", `"`+api.EmptyRepoChecksum+`"`)
		if took := time.Since(start); w.Code != http.StatusNotModified || took < 5*time.Second || took > 5500*time.Millisecond {
			t.Errorf("wait=3600 with MaxWait 5s = %d after %s, want 304 after 5 to 5.5 s", w.Code, took)
		}
	})
}

// TestStopEndsWait checks that beginning a shutdown answers waits at once.
func TestStopEndsWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, tok := newInternal(t, Config{}, Options{})
		done := make(chan *httptest.ResponseRecorder, 1)
		go func() {
			done <- call(s, tok, "GET", target+"&view=hashes&wait=60", "", "If-None-Match", `"`+api.EmptyRepoChecksum+`"`)
		}()
		synctest.Wait()
		if got := s.waitSlots.count(); got != 1 {
			t.Fatalf("waiters = %d, want 1", got)
		}
		s.beginStop()
		synctest.Wait()
		select {
		case w := <-done:
			if w.Code != http.StatusServiceUnavailable {
				t.Errorf("wait at shutdown = %d, want 503", w.Code)
			}
		default:
			t.Fatal("wait still held after shutdown began")
		}
		if got := s.waker.(*wake.Broker).Len(); got != 0 {
			t.Errorf("broker topics after the wait = %d, want 0", got)
		}
	})
}

func TestJitter(t *testing.T) {
	for _, d := range []time.Duration{0, 9, time.Second, 60 * time.Second} {
		for range 100 {
			if j := jitter(d); j < 0 || j > d/10 {
				t.Fatalf("jitter(%s) = %s, want within [0, %s]", d, j, d/10)
			}
		}
	}
}

func TestPrune(t *testing.T) {
	s, tok := newInternal(t, Config{History: Retention{KeepVersions: 1}}, Options{})
	for _, v := range []string{"one", "two", "three"} {
		if w := call(s, tok, "PUT", target, `{"entries":{"a.md":"`+v+`"}}`); w.Code != http.StatusOK {
			t.Fatalf("PUT = %d %s", w.Code, w.Body)
		}
	}
	s.prune(context.Background())
	revs, err := store.ListHistory(context.Background(), s.store, store.HistoryQuery{Repo: "acme/app", Key: "a.md", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(revs) != 3 {
		t.Fatalf("History = %d revisions, want 3 (records are kept)", len(revs))
	}
	for i, rev := range revs {
		if hasContent := rev.Content != nil; hasContent != (i == 0) {
			t.Errorf("revision %d (version %d) has content %v, want %v", i, rev.Version, hasContent, i == 0)
		}
	}
}

func TestBearerToken(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"Bearer abc", "abc", true},
		{"bearer abc", "abc", true},
		{"  Bearer   abc  ", "abc", true},
		{"Bearer", "", false},
		{"Bearer ", "", false},
		{"Basic abc", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		got, ok := bearerToken(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("bearerToken(%q) = %q, %v, want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestFirstETag(t *testing.T) {
	tests := []struct{ in, want string }{
		{`"sha256:ab"`, "sha256:ab"},
		{`W/"sha256:ab"`, "sha256:ab"},
		{`"sha256:ab", "sha256:cd"`, "sha256:ab"},
		{`sha256:ab`, "sha256:ab"},
		{` * `, "*"},
		{``, ""},
	}
	for _, tt := range tests {
		if got := firstETag(tt.in); got != tt.want {
			t.Errorf("firstETag(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestNoOpPutOnNeverWrittenRepo checks that a PUT that writes nothing to a
// repo never written answers the request time, version 0 and the empty
// checksum, and that the repo still does not exist.
func TestNoOpPutOnNeverWrittenRepo(t *testing.T) {
	s, tok := newInternal(t, Config{}, Options{})
	at := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	s.now = func() time.Time { return at }
	w := call(s, tok, http.MethodPut, target, `{"entries":{}}`)
	if w.Code != http.StatusOK {
		t.Fatalf("no-op PUT = %d %s, want 200", w.Code, w.Body)
	}
	var pr api.PutResponse
	if err := json.Unmarshal(w.Body.Bytes(), &pr); err != nil {
		t.Fatal(err)
	}
	if !pr.LastModified.Equal(at) || pr.Version != 0 || pr.Checksum != api.EmptyRepoChecksum {
		t.Errorf("no-op PUT = lastModified %s version %d checksum %s, want %s version 0 checksum %s",
			pr.LastModified, pr.Version, pr.Checksum, at, api.EmptyRepoChecksum)
	}
	if g := call(s, tok, http.MethodGet, target, ""); g.Code != http.StatusNotFound {
		t.Errorf("GET after no-op PUT = %d, want 404", g.Code)
	}
}
