package servertest

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/store"
)

func status(t *testing.T, method, url, token, body string) int {
	t.Helper()
	r, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	r.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode
}

func TestStartStopRestart(t *testing.T) {
	s := Start(t, WithLimits(api.Limits{MaxEntries: 1}))
	if !strings.HasPrefix(s.URL, "http://127.0.0.1:") || !s.Running() {
		t.Fatalf("Start: URL %s running %v, want a running 127.0.0.1 server", s.URL, s.Running())
	}
	u := s.URL + api.Path + "?repo=acme%2Fapp"
	if got := status(t, "PUT", u, s.Token, `{"entries":{"a.md":"a"}}`); got != 200 {
		t.Fatalf("PUT with the harness token = %d, want 200", got)
	}
	if got := status(t, "PUT", u, s.Token, `{"entries":{"b.md":"b"}}`); got != 413 {
		t.Errorf("PUT over WithLimits MaxEntries = %d, want 413", got)
	}
	reader := s.CreateToken(t, "reader", store.Grant{Pattern: "acme/*", Level: store.LevelRead})
	if got := status(t, "PUT", u, reader, `{"entries":{"a.md":"b"}}`); got != 403 {
		t.Errorf("PUT with a read token = %d, want 403", got)
	}

	s.Stop()
	s.Stop()
	if got := status(t, "GET", u, s.Token, ""); got != 0 || s.Running() {
		t.Errorf("GET while stopped = %d running %v, want a connection error", got, s.Running())
	}
	url := s.URL
	s.Restart(t)
	if s.URL != url {
		t.Errorf("Restart URL = %s, want %s", s.URL, url)
	}
	if got := status(t, "GET", u, reader, ""); got != 200 {
		t.Errorf("GET after restart = %d, want 200 (same database, same tokens)", got)
	}
}

func TestRestartWith(t *testing.T) {
	s := Start(t, WithLimits(api.Limits{MaxEntries: 1}))
	u := s.URL + api.Path + "?repo=acme%2Fapp"
	two := `{"entries":{"a.md":"a","b.md":"b"}}`
	if got := status(t, "PUT", u, s.Token, two); got != 413 {
		t.Fatalf("PUT of two entries over MaxEntries 1 = %d, want 413", got)
	}
	s.RestartWith(t, WithLimits(api.Limits{MaxEntries: 2}))
	if got := status(t, "PUT", u, s.Token, two); got != 200 {
		t.Errorf("PUT of two entries after RestartWith MaxEntries 2 = %d, want 200", got)
	}
}
