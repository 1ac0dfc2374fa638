package server_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/server"
	"github.com/teammemd/teammemd/server/servertest"
)

// The MCP endpoint's resource metadata and its WWW-Authenticate challenge
// name the URL clients reach the server at: behind a reverse proxy that
// ends TLS, https, which a trusted proxy tells with X-Forwarded-Proto and
// [server.ui] url names outright; the header from any other peer is
// ignored.
func TestMCPResourceNamesThePublicURL(t *testing.T) {
	https := map[string]string{"X-Forwarded-Proto": "https"}
	tests := []struct {
		name    string
		config  func(*server.Config)
		headers map[string]string
		want    string // the resource's scheme and host; "" for the server's own
	}{
		{"direct", nil, nil, ""},
		{"untrusted peer says https", nil, https, ""},
		{"trusted proxy says https", func(c *server.Config) { c.TrustedProxies = []string{"127.0.0.1", "::1"} }, https, "https://"},
		{"trusted proxy says http", func(c *server.Config) { c.TrustedProxies = []string{"127.0.0.1", "::1"} },
			map[string]string{"X-Forwarded-Proto": "http"}, ""},
		{"ui url", func(c *server.Config) { c.UI.URL = "https://memory.example.com/" }, nil, "https://memory.example.com"},
	}
	for _, tt := range tests {
		// The endpoint's handler is the command's; any one shows what
		// the server says before it.
		opts := []servertest.Option{servertest.WithOptions(func(o *server.Options) { o.MCP = http.NotFoundHandler() })}
		if tt.config != nil {
			opts = append(opts, servertest.WithConfig(tt.config))
		}
		s := servertest.Start(t, opts...)
		host := strings.TrimPrefix(s.URL, "http://")
		want := tt.want
		switch want {
		case "":
			want = "http://" + host
		case "https://":
			want += host
		}
		r := do(t, s.URL, req{path: "/.well-known/oauth-protected-resource/mcp", headers: tt.headers})
		var md struct {
			Resource string `json:"resource"`
		}
		if err := json.Unmarshal(r.body, &md); err != nil || r.status != http.StatusOK {
			t.Fatalf("%s: metadata = %d %s (%v)", tt.name, r.status, r.body, err)
		}
		if md.Resource != want+server.MCPPath {
			t.Errorf("%s: resource %q, want %q", tt.name, md.Resource, want+server.MCPPath)
		}
		r = do(t, s.URL, req{method: http.MethodPost, path: server.MCPPath, body: "{}", headers: tt.headers})
		challenge := r.header.Get("WWW-Authenticate")
		if r.status != http.StatusUnauthorized || !strings.Contains(challenge, `resource_metadata="`+want+"/.well-known/oauth-protected-resource/mcp") {
			t.Errorf("%s: unauthenticated POST /mcp = %d, WWW-Authenticate %q, want 401 naming %s", tt.name, r.status, challenge, want)
		}
	}
}
