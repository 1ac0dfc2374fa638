package server

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/auth"
)

// MCPPath is the route of the Model Context Protocol endpoint.
const MCPPath = "/mcp"

// Protected resource metadata (RFC 9728): the document for the whole
// server, and the one for MCPPath, which MCP clients ask for first.
const (
	resourceMetadataPath    = "/.well-known/oauth-protected-resource"
	mcpResourceMetadataPath = resourceMetadataPath + MCPPath
)

type callerKey struct{}

// CallerFrom returns the caller the MCP route admitted; false outside it.
func CallerFrom(ctx context.Context) (*Caller, bool) {
	c, ok := ctx.Value(callerKey{}).(*Caller)
	return c, ok
}

// mcpRoute admits a request to the MCP handler as apiRoute admits one to
// the API: the client address's budget of failed authentications, the
// credential, the per-subject rate limit. The admitted caller rides in
// the request's context (CallerFrom); the body is capped. A 401 names the
// protected resource metadata, so that an MCP client can find where to
// log in.
func (s *Server) mcpRoute(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, err := s.admit(w, r)
		if err == nil {
			info := infoFrom(r.Context())
			info.subject, info.mode = p.Subject, p.Mode
			err = s.limit(w, p.Subject)
		}
		if err != nil {
			if ae := (*api.Error)(nil); errors.As(err, &ae) && ae.Status == http.StatusUnauthorized {
				w.Header().Set("WWW-Authenticate", `Bearer realm="teammemd", resource_metadata="`+s.baseURL(r)+mcpResourceMetadataPath+`"`)
			}
			s.writeError(w, r, err)
			return
		}
		bearer, _ := bearerToken(r.Header.Get("Authorization"))
		c := &Caller{s: s, p: p, bearer: bearer, client: s.writeClient(r.Context(), p, r.Header)}
		r.Body = http.MaxBytesReader(w, r.Body, mcpBodyBytes(s.limits))
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), callerKey{}, c)))
	})
}

// mcpBodyBytes caps one MCP request: a write of a whole PUT's worth of
// content, escaped in JSON, within a JSON-RPC message. The content itself
// is held to the PUT's limits when it is written.
func mcpBodyBytes(lim api.Limits) int64 { return 2*lim.MaxBodyBytes + 64<<10 }

// baseURL is the server's URL as clients reach it, for the MCP metadata
// and the web view's sign-in: [server.ui] url when set; else the
// request's host, over https when the request came over TLS, or through a
// trusted proxy whose X-Forwarded-Proto says https.
func (s *Server) baseURL(r *http.Request) string {
	if s.publicURL != "" {
		return s.publicURL
	}
	scheme := "http"
	if r.TLS != nil || s.proxies.forwardedHTTPS(r) {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// resourceMetadata is the RFC 9728 document of the MCP endpoint.
type resourceMetadata struct {
	Resource               string   `json:"resource"`
	AuthorizationServers   []string `json:"authorization_servers,omitempty"`
	BearerMethodsSupported []string `json:"bearer_methods_supported"`
	ScopesSupported        []string `json:"scopes_supported,omitempty"`
	ResourceName           string   `json:"resource_name"`
	ResourceDocumentation  string   `json:"resource_documentation,omitempty"`
}

// serveResourceMetadata answers the protected resource metadata without
// authentication: the MCP endpoint, and the OIDC issuer as its
// authorization server when OIDC is on.
func (s *Server) serveResourceMetadata(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		s.writeError(w, r, api.NewError(http.StatusMethodNotAllowed, api.CodeInvalidRequest, "use GET"))
		return
	}
	md := resourceMetadata{Resource: s.baseURL(r) + MCPPath, BearerMethodsSupported: []string{"header"}, ResourceName: "teammemd team memory"}
	if ad, ok := s.auth.(authDescriber); ok {
		if l := ad.Login(r.Context()); l != nil {
			md.AuthorizationServers, md.ScopesSupported = []string{l.Issuer}, l.Scopes
		}
	}
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Access-Control-Allow-Origin", "*")
	s.writeJSON(w, http.StatusOK, md)
}

// Caller is one admitted MCP request's caller: the team memory as its
// grants let it see and change it, through the API's own checks.
type Caller struct {
	s      *Server
	p      auth.Principal
	bearer string
	client string // who writes, for history: the credential and the HTTP client
}

// Subject names the caller, as in history and the access log.
func (c *Caller) Subject() string { return c.p.Subject }

// principal is the caller as judged for repo: for an authenticator whose
// grants depend on the repo (GitHub's), the credential is judged again
// for it, as a request naming repo would be.
func (c *Caller) principal(ctx context.Context, repo string) (auth.Principal, error) {
	ra, ok := c.s.auth.(auth.RepoAuthenticator)
	if !ok || c.p.Mode != auth.ModeGitHub || strings.TrimSpace(repo) == "" {
		return c.p, nil
	}
	return ra.AuthenticateRepo(ctx, c.bearer, repo)
}
