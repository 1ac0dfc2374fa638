package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/teammemd/teammemd/scan/scantest"
	"github.com/teammemd/teammemd/server/api"
)

// logRecord keeps every log line written and hands each to a lineWriter.
type logRecord struct {
	mu    sync.Mutex
	all   bytes.Buffer
	lines *lineWriter
}

func newLogRecord() *logRecord {
	return &logRecord{lines: &lineWriter{lines: make(chan string, 1000)}}
}

func (l *logRecord) Write(p []byte) (int, error) {
	l.mu.Lock()
	l.all.Write(p)
	l.mu.Unlock()
	return l.lines.Write(p)
}

func (l *logRecord) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.all.String()
}

// served is a "teammemd serve" running in the test on a loopback port.
type served struct {
	addr, token string
	data        string // the database's directory, for more tokens
	log         *logRecord
}

// startServe runs "teammemd serve" with the config text on a new database
// with a write token on every repo, until the test ends.
func startServe(t *testing.T, config string) *served {
	t.Helper()
	isolateConfig(t)
	data := t.TempDir()
	var token bytes.Buffer
	if err := run(context.Background(), []string{"token", "create", "--data", data, "--subject", "alice", "--repos", "**"}, &token, io.Discard); err != nil {
		t.Fatalf("token create: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &served{token: strings.TrimSpace(token.String()), data: data, log: newLogRecord()}
	errc := make(chan error, 1)
	go func() {
		errc <- run(ctx, []string{"serve", "--listen", "127.0.0.1:0", "--data", data, "--config", writeConfig(t, config)}, io.Discard, s.log)
	}()
	s.addr, _ = awaitLog(t, s.log.lines.lines, errc, "listening")["addr"].(string)
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-errc:
			if err != nil {
				t.Errorf("serve after cancel = %v, want nil", err)
			}
		case <-time.After(30 * time.Second):
			t.Error("serve did not stop after cancel")
		}
	})
	return s
}

// put sends a PUT to the served repo acme/app and returns the status and
// the body.
func (s *served) put(t *testing.T, req api.PutRequest) (int, []byte) {
	t.Helper()
	body, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	return s.do(t, http.MethodPut, body)
}

func (s *served) do(t *testing.T, method string, body []byte) (int, []byte) {
	t.Helper()
	hr, err := http.NewRequest(method, "http://"+s.addr+api.Path+"?repo=acme%2Fapp", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	hr.Header.Set("Authorization", "Bearer "+s.token)
	resp, err := http.DefaultClient.Do(hr)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, got
}

// ruleIDsOf returns details.rule_ids of an error body.
func ruleIDsOf(status int, body []byte) []string {
	ids, _ := api.ParseError(status, body).Details["rule_ids"].([]any)
	var out []string
	for _, id := range ids {
		s, _ := id.(string)
		out = append(out, s)
	}
	return out
}

// The server scans every key and every value, whatever the key's path: a
// secret under a path gitleaks' default config allowlists, a key that is a
// secret, and a deletion of such a key are refused with 422 naming the
// rule, nothing is stored, and no answer or log line holds the secret.
func TestServeRefusesSecretsUnderEveryPathAndInKeys(t *testing.T) {
	s := startServe(t, "")
	aws := scantest.AWSKey()
	type vector struct {
		name     string
		req      api.PutRequest
		rule     string
		wantCode int
	}
	var vectors []vector
	for _, p := range scantest.DefaultAllowedPaths(t) {
		rule, note := scantest.SecretFor(t, p)
		vectors = append(vectors, vector{"a value under " + p.Key, api.PutRequest{Entries: map[string]string{p.Key: note}}, rule, http.StatusUnprocessableEntity})
	}
	vectors = append(vectors,
		vector{"a key that is a secret", api.PutRequest{Entries: map[string]string{aws + ".md": "plain notes\n"}}, scantest.AWSRule, http.StatusUnprocessableEntity},
		vector{"a secret in a nested key", api.PutRequest{Entries: map[string]string{"creds/" + aws + "/prod.md": "plain notes\n"}}, scantest.AWSRule, http.StatusUnprocessableEntity},
		vector{"a deletion of a key that is a secret", api.PutRequest{SoftDeleteKeys: []string{"creds/" + aws + ".md"}}, scantest.AWSRule, http.StatusUnprocessableEntity},
		vector{"a secret in an invalid key", api.PutRequest{Entries: map[string]string{"creds/" + aws + "/../x.md": "plain"}}, "", http.StatusBadRequest},
	)
	for _, v := range vectors {
		status, body := s.put(t, v.req)
		if status != v.wantCode {
			t.Errorf("PUT %s = %d %s, want %d", v.name, status, body, v.wantCode)
			continue
		}
		if leaks := scantest.Leaks(string(body), aws, 8); len(leaks) > 0 {
			t.Errorf("PUT %s: the answer holds the secret: %v", v.name, leaks)
		}
		if v.rule != "" && !slices.Contains(ruleIDsOf(status, body), v.rule) {
			t.Errorf("PUT %s: rule_ids = %v, want %s", v.name, ruleIDsOf(status, body), v.rule)
		}
		if key, _ := api.ParseError(status, body).Details["key"].(string); key == "" {
			t.Errorf("PUT %s: details = %s, want the refused key named (redacted when it holds the secret)", v.name, body)
		}
	}
	if status, body := s.do(t, http.MethodGet, nil); status != http.StatusNotFound {
		t.Errorf("GET after the refused PUTs = %d %s, want 404: nothing stored", status, body)
	}
	if leaks := scantest.Leaks(s.log.String(), aws, 8); len(leaks) > 0 {
		t.Errorf("the server's log holds the secret: %v", leaks)
	}
}

// A key is chosen by the client, so no path allowlist decides the server's
// verdict: the server ignores [scan] allow_paths and the path allowlists of
// its own .gitleaks.toml, and says so once at start.
func TestServeIgnoresPathAllowlists(t *testing.T) {
	gl := writeConfig(t, "[extend]\nuseDefault = true\n\n[[allowlists]]\npaths = ['''^docs/''']\n")
	s := startServe(t, "[scan]\nallow_paths = ['^fixtures/']\ngitleaks_config = '"+gl+"'\n")
	var warnings []string
	for _, line := range strings.Split(s.log.String(), "\n") {
		if strings.Contains(line, `"level":"WARN"`) && strings.Contains(line, "allow_paths") {
			warnings = append(warnings, line)
		}
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], gl) {
		t.Errorf("serve warned %q, want one warning naming scan.allow_paths and %s", warnings, gl)
	}
	for _, key := range []string{"fixtures/a.md", "docs/a.md"} {
		status, body := s.put(t, api.PutRequest{Entries: map[string]string{key: scantest.AWSNote(scantest.AWSKey())}})
		if status != http.StatusUnprocessableEntity || !slices.Contains(ruleIDsOf(status, body), scantest.AWSRule) {
			t.Errorf("PUT a secret under allowlisted %s = %d %s, want 422 naming %s", key, status, body, scantest.AWSRule)
		}
	}
}
