package main

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server"
	"github.com/teammemd/teammemd/server/auth"
	"github.com/teammemd/teammemd/server/auth/authtest"
	"github.com/teammemd/teammemd/server/servertest"
	"github.com/teammemd/teammemd/server/store"
)

// With OIDC on, /mcp takes the provider's JWTs under the grants of
// [server.auth], and its protected resource metadata names the issuer as
// the authorization server.
func TestServeMCPOIDC(t *testing.T) {
	clock := authtest.NewClock()
	idp := authtest.NewIdP(t, clock)
	cfg := auth.Config{
		OIDC: auth.OIDCConfig{Enabled: true, Issuer: idp.URL, ClientID: idp.ClientID},
		Grants: []auth.GrantRule{
			{Subject: "group:eng", Repos: []string{"acme/**"}, Level: store.LevelWrite},
			{Subject: "email:*@acme.com", Repos: []string{"acme/**"}, Level: store.LevelRead},
		},
	}
	h, err := serveMCP(servertest.Config(), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	s := servertest.Start(t, servertest.WithAuth(cfg, auth.Options{HTTPClient: authtest.Client(t), Now: clock.Now}),
		servertest.WithOptions(func(o *server.Options) { o.MCP = h }))

	resp, err := http.Get(s.URL + "/.well-known/oauth-protected-resource/mcp")
	if err != nil {
		t.Fatal(err)
	}
	var md struct {
		Resource             string   `json:"resource"`
		AuthorizationServers []string `json:"authorization_servers"`
	}
	err = json.NewDecoder(resp.Body).Decode(&md)
	resp.Body.Close()
	if err != nil || md.Resource != s.URL+"/mcp" || len(md.AuthorizationServers) != 1 || md.AuthorizationServers[0] != idp.URL {
		t.Errorf("protected resource metadata = %+v, %v; want %s/mcp guarded by %s", md, err, s.URL, idp.URL)
	}

	srv := &served{addr: s.Addr}
	alice := authtest.User{Sub: "u-alice", Email: "alice@acme.com", EmailVerified: true, Groups: []string{"eng"}}
	bob := authtest.User{Sub: "u-bob", Email: "bob@acme.com", EmailVerified: true}
	writer := srv.mcpSession(t, idp.IDToken(alice, idp.ClientID, time.Hour))
	if _, msg := call(t, writer, "memory_write", map[string]any{"repo": "acme/app", "key": "MEMORY.md", "content": "# App\n"}); msg != "" {
		t.Fatalf("memory_write with alice's JWT = %s", msg)
	}
	reader := srv.mcpSession(t, idp.IDToken(bob, idp.ClientID, time.Hour))
	if r, msg := call(t, reader, "memory_read", map[string]any{"repo": "acme/app", "key": "MEMORY.md"}); msg != "" || r["content"] != "# App\n" {
		t.Errorf("memory_read with bob's JWT = %v, %s", r, msg)
	}
	if _, msg := call(t, reader, "memory_write", map[string]any{"repo": "acme/app", "key": "ci.md", "content": "CI\n"}); !strings.Contains(msg, "can read this repo but not write it") {
		t.Errorf("memory_write with bob's read-only JWT = %q, want it refused", msg)
	}
}
