package webui_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/servertest"
	"github.com/teammemd/teammemd/server/store"
)

// personalCall sends one request of the personal lane with alice's token.
func personalCall(t *testing.T, srv *servertest.Server, token, method, path, body string, headers map[string]string) {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, bytes.NewReader([]byte(body)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("%s %s = %d %s, want 200", method, path, resp.StatusCode, b)
	}
}

// TestPersonalLaneHiddenFromWebView has alice write a personal lane, and
// the view's admin, with every grant on every repo, look for it on every
// page that lists, searches, audits or opens repos: nothing of the lane
// shows, and its store name opens nothing.
func TestPersonalLaneHiddenFromWebView(t *testing.T) {
	srv := startServer(t)
	const keyID, lane, entryKey, value = "0123456789abcdef0123456789abcdef", "aaaabbbbccccddddeeeeffff00001111",
		"0c1d2e3f4a5b6c7d8e9f.age", "opaquewords ciphertext of alice"
	alice := srv.CreateToken(t, "alice")
	env, err := json.Marshal(api.KeyEnvelope{KeyID: keyID, Envelope: "armor"})
	if err != nil {
		t.Fatal(err)
	}
	personalCall(t, srv, alice, http.MethodPut, api.PersonalKeyPath, string(env), map[string]string{"If-None-Match": "*"})
	body, err := json.Marshal(api.PutRequest{Entries: map[string]string{entryKey: value}})
	if err != nil {
		t.Fatal(err)
	}
	personalCall(t, srv, alice, http.MethodPut, api.PersonalPath+"?lane="+lane, string(body), map[string]string{api.PersonalKeyHeader: keyID})
	put(t, srv, srv.Token, "acme/app", map[string]string{"a.md": "team words"})

	repo := store.PersonalRepo("alice", lane)
	traces := []string{lane, strings.Split(repo, "/")[1], entryKey, value, keyID}
	b := signedIn(t, srv, admin, grant("**", store.LevelReview))
	q := url.QueryEscape(repo)
	for _, path := range []string{
		"/ui/", "/ui/search?q=opaquewords", "/ui/search?q=alice", "/ui/audit", "/ui/review",
		"/ui/repo?repo=" + q, "/ui/note?repo=" + q + "&key=" + entryKey, "/ui/history?repo=" + q + "&key=" + entryKey,
		"/ui/loads?repo=" + q, "/ui/audit?repo=" + q, "/ui/proposals?repo=" + q,
	} {
		p := b.get(path)
		text := strings.ReplaceAll(p.body, repo, "")
		text = strings.ReplaceAll(text, url.QueryEscape(repo), "")
		for _, tr := range traces {
			if strings.Contains(text, tr) {
				t.Errorf("GET %s (%d) shows %q of alice's lane", path, p.status, tr)
			}
		}
	}
	if p := b.get("/ui/"); !strings.Contains(p.body, "acme/app") {
		t.Errorf("GET /ui/ = %q, want acme/app listed", p.body)
	}
}
