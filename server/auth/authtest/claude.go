package authtest

import (
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// ProfilePath is where claude.ai answers who an OAuth access token belongs
// to.
const ProfilePath = "/api/oauth/profile"

// Account is a claude.ai account as the profile endpoint describes it.
type Account struct {
	UUID, Email, Name string
	// OrgUUID is the account's organization.
	OrgUUID string
}

// ClaudeProfile is a fake of claude.ai's OAuth profile endpoint: it answers
// for the access tokens it knows, with the anthropic-beta header the real one
// wants, and 401 otherwise.
type ClaudeProfile struct {
	// URL is the endpoint to configure as profile_url.
	URL string
	// Calls counts the requests answered.
	Calls atomic.Int64

	mu       sync.Mutex
	accounts map[string]Account // access token -> account
	down     bool
}

// NewClaudeProfile starts the fake.
func NewClaudeProfile(t testing.TB) *ClaudeProfile {
	c := &ClaudeProfile{accounts: map[string]Account{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+ProfilePath, c.profile)
	c.URL = serve(t, mux).URL + ProfilePath
	return c
}

// Add makes token a valid access token of a.
func (c *ClaudeProfile) Add(token string, a Account) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.accounts[token] = a
}

// Revoke makes token invalid, as signing out does.
func (c *ClaudeProfile) Revoke(token string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.accounts, token)
}

// SetDown makes the endpoint answer 503 while down is true.
func (c *ClaudeProfile) SetDown(down bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.down = down
}

func (c *ClaudeProfile) profile(w http.ResponseWriter, r *http.Request) {
	c.Calls.Add(1)
	c.mu.Lock()
	a, ok := c.accounts[bearer(r)]
	down := c.down
	c.mu.Unlock()
	switch {
	case down:
		writeJSON(w, http.StatusServiceUnavailable, apiError("overloaded_error", "Overloaded"))
	case !strings.Contains(r.Header.Get("anthropic-beta"), "oauth-2025-04-20"):
		writeJSON(w, http.StatusUnauthorized, apiError("authentication_error", "OAuth authentication is currently not supported."))
	case !ok:
		writeJSON(w, http.StatusUnauthorized, apiError("authentication_error", "Invalid bearer token"))
	default:
		writeJSON(w, http.StatusOK, map[string]any{
			"account": map[string]any{"uuid": a.UUID, "email": a.Email, "full_name": a.Name, "display_name": a.Name,
				"has_claude_max": false, "has_claude_pro": true},
			"organization": map[string]any{"uuid": a.OrgUUID, "organization_type": "claude_team", "rate_limit_tier": "default_claude_ai"},
		})
	}
}

func apiError(kind, msg string) map[string]any {
	return map[string]any{"type": "error", "error": map[string]string{"type": kind, "message": msg}}
}
