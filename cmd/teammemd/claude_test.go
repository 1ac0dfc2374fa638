package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/auth/authtest"
)

// claudeCodeRequest sends what a stock Claude Code sends to
// $TEAM_MEMORY_SYNC_URL: its claude.ai OAuth access token and the OAuth beta
// header.
func claudeCodeRequest(t *testing.T, method, url, token string, body []byte) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("anthropic-beta", "oauth-2025-04-20")
	req.Header.Set("User-Agent", "claude-cli/2.1.0 (external, cli)")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, got
}

// TestStockClaudeCode runs "teammemd serve" with Claude accounts on, against
// a fake of the claude.ai profile endpoint, and syncs the way a stock Claude
// Code pointed at it with TEAM_MEMORY_SYNC_URL does.
func TestStockClaudeCode(t *testing.T) {
	isolateConfig(t)
	profile := authtest.NewClaudeProfile(t)
	if !strings.HasPrefix(profile.URL, "http://127.0.0.1:") {
		t.Fatalf("profile endpoint %s is not the loopback fake", profile.URL)
	}
	const token = "sk-ant-oat01-alice-Zm9vYmFyYmF6cXV4"
	profile.Add(token, authtest.Account{UUID: "acc-alice", Email: "alice@acme.com", OrgUUID: "org-acme"})
	cfg := writeConfig(t, `[server]
scan_secrets = false
[server.auth.claude]
enabled = true
profile_url = "`+profile.URL+`"
[[server.auth.grants]]
subject = "email:*@acme.com"
repos = ["acme/**"]
level = "write"
`)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	logs := &lineWriter{lines: make(chan string, 1000)}
	errc := make(chan error, 1)
	go func() {
		errc <- run(ctx, []string{"serve", "--listen", "127.0.0.1:0", "--data", filepath.Join(t.TempDir(), "data"), "--config", cfg}, io.Discard, logs)
	}()
	addr, _ := awaitLog(t, logs.lines, errc, "listening")["addr"].(string)
	syncURL := "http://" + addr // what TEAM_MEMORY_SYNC_URL holds
	memory := syncURL + api.Path + "?repo=acme%2Fapp"

	body, _ := json.Marshal(api.PutRequest{Entries: map[string]string{"MEMORY.md": "# Team memory\n"}})
	if status, got := claudeCodeRequest(t, http.MethodPut, memory, token, body); status != http.StatusOK {
		t.Fatalf("PUT as Claude Code = %d %s, want 200", status, got)
	}
	status, got := claudeCodeRequest(t, http.MethodGet, memory, token, nil)
	var full api.FullResponse
	if err := json.Unmarshal(got, &full); status != http.StatusOK || err != nil || full.Content.Entries["MEMORY.md"] != "# Team memory\n" {
		t.Fatalf("GET as Claude Code = %d %s, want 200 with MEMORY.md", status, got)
	}
	status, got = claudeCodeRequest(t, http.MethodGet, memory, "sk-ant-oat01-signed-out", nil)
	if e := api.ParseError(status, got); status != http.StatusUnauthorized || e.Code != api.CodeUnauthenticated ||
		!strings.Contains(e.Message, "/login") || e.Details["reason"] != "token_rejected" {
		t.Errorf("GET with an unknown Claude token = %d %s, want 401 unauthenticated, reason token_rejected, saying to /login", status, got)
	}

	status, got = claudeCodeRequest(t, http.MethodGet, syncURL+api.DiscoveryPath, "", nil)
	var d api.Discovery
	if err := json.Unmarshal(got, &d); status != http.StatusOK || err != nil ||
		!slices.Equal(d.AuthModes, []string{"token", "claude"}) || d.Version != version ||
		!regexp.MustCompile(`^[0-9a-f]{32}$`).MatchString(d.StoreID) || d.Login != nil {
		t.Errorf("GET %s = %d %s, want the version, a store id and modes token, claude", api.DiscoveryPath, status, got)
	}

	cancel()
	if err := <-errc; err != nil {
		t.Errorf("serve after cancel = %v, want nil", err)
	}
	checkAccessLog(t, logs, token)
}

// checkAccessLog finds the Claude account's requests in the access log,
// named by mode and subject, and the token nowhere.
func checkAccessLog(t *testing.T, logs *lineWriter, token string) {
	t.Helper()
	var seen bool
	for len(logs.lines) > 0 {
		line := <-logs.lines
		if strings.Contains(line, token) {
			t.Errorf("log line holds the Claude token: %s", line)
		}
		var rec map[string]any
		if json.Unmarshal([]byte(line), &rec) == nil && rec["msg"] == "request" && rec["subject"] == "claude:alice@acme.com" {
			seen = seen || rec["mode"] == "claude"
		}
	}
	if !seen {
		t.Error("no access log line names mode claude and subject claude:alice@acme.com")
	}
}
