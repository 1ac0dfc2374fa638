package auth

import (
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/teammemd/teammemd/internal/loopback"
)

// Auth modes: the kinds of credential a server can accept.
const (
	ModeToken  = "token"  // static tmd_ tokens from "teammemd token create"
	ModeOIDC   = "oidc"   // JWTs from the organisation's OpenID Connect provider
	ModeGitHub = "github" // GitHub tokens, granted what GitHub grants on the repo
	ModeClaude = "claude" // the claude.ai OAuth access token a stock Claude Code sends
)

// Defaults of the [server.auth] section.
const (
	DefaultGitHubAPIURL        = "https://api.github.com"
	DefaultClaudeProfileURL    = "https://api.anthropic.com/api/oauth/profile"
	DefaultClaudeBeta          = "oauth-2025-04-20"
	DefaultVerdictTTL          = 5 * time.Minute
	DefaultFailureCacheTTL     = time.Minute
	DefaultFailureCacheSize    = 10_000
	DefaultChecksInFlight      = 16
	DefaultClockSkew           = 30 * time.Second
	DefaultJWKSRefreshInterval = time.Minute
	DefaultGroupsClaim         = "groups"
)

// DefaultOIDCScopes are the scopes "teammemd login" asks for.
var DefaultOIDCScopes = []string{"openid", "email", "profile", "offline_access"}

// Upper bounds of the settings.
const (
	maxVerdictTTL          = time.Hour
	maxClockSkew           = 10 * time.Minute
	maxFailureCacheSize    = 1_000_000
	maxChecksInFlight      = 1024
	maxJWKSRefreshInterval = time.Hour
)

// Config is the [server.auth] section: which credentials the server accepts
// and, for the modes whose identities the server does not store, the grants
// that map them to repos. The zero value accepts static tokens only.
type Config struct {
	// Tokens turns static tmd_ tokens on or off; on when unset.
	Tokens *bool `toml:"tokens"`
	// OIDC accepts JWTs from an OpenID Connect provider ([server.auth.oidc]).
	OIDC OIDCConfig `toml:"oidc"`
	// GitHub accepts GitHub tokens ([server.auth.github]).
	GitHub GitHubConfig `toml:"github"`
	// Claude accepts claude.ai OAuth access tokens ([server.auth.claude]).
	Claude ClaudeConfig `toml:"claude"`
	// Grants map OIDC and Claude identities to repos ([[server.auth.grants]]).
	Grants []GrantRule `toml:"grants"`
	// FailureCacheTTL is how long a credential the OIDC provider, GitHub or
	// claude.ai refused is refused again without asking.
	FailureCacheTTL time.Duration `toml:"failure_cache_ttl"`
	// FailureCacheSize bounds how many refused credentials are remembered
	// (by SHA-256, never the credential).
	FailureCacheSize int `toml:"failure_cache_size"`
	// MaxChecksInFlight bounds the calls to the OIDC provider, GitHub and
	// claude.ai in flight at once; a check past it waits for a slot.
	MaxChecksInFlight int `toml:"max_checks_in_flight"`
}

// OIDCConfig is [server.auth.oidc].
type OIDCConfig struct {
	Enabled bool `toml:"enabled"`
	// Issuer is the provider's issuer URL; its discovery document names the
	// keys and the device login endpoints.
	Issuer string `toml:"issuer"`
	// ClientID is the public client "teammemd login" uses.
	ClientID string `toml:"client_id"`
	// Audience must be in a token's aud claim; ClientID when empty.
	Audience string `toml:"audience"`
	// Scopes are asked for at login; DefaultOIDCScopes when empty.
	Scopes []string `toml:"scopes"`
	// GroupsClaim names the claim listing the user's groups.
	GroupsClaim string `toml:"groups_claim"`
	// ClockSkew is how far the provider's clock may be from ours.
	ClockSkew time.Duration `toml:"clock_skew"`
	// JWKSRefreshInterval is the least time between two fetches of the
	// provider's keys, which a token naming a key not yet fetched asks for.
	JWKSRefreshInterval time.Duration `toml:"jwks_refresh_interval"`
}

// GitHubConfig is [server.auth.github].
type GitHubConfig struct {
	Enabled bool `toml:"enabled"`
	// APIURL is the REST API base: https://api.github.com, or
	// https://HOST/api/v3 for GitHub Enterprise Server.
	APIURL string `toml:"api_url"`
	// RepoHost is the host of this GitHub's repos: "github.com", whose slugs
	// are owner/name, or a GitHub Enterprise host, whose slugs are
	// host/owner/name. The default is github.com for api.github.com and the
	// API URL's host otherwise.
	RepoHost string `toml:"repo_host"`
	// CacheTTL is how long GitHub's answers are trusted.
	CacheTTL time.Duration `toml:"cache_ttl"`
	// ReadPublicRepos lets every GitHub user read the team memory of a
	// public repo, on which GitHub gives everyone pull. Off, a public repo's
	// team memory is for the users with push on it.
	ReadPublicRepos bool `toml:"read_public_repos"`
}

// ClaudeConfig is [server.auth.claude].
type ClaudeConfig struct {
	Enabled bool `toml:"enabled"`
	// ProfileURL answers who a claude.ai OAuth access token belongs to.
	ProfileURL string `toml:"profile_url"`
	// Beta is sent as the anthropic-beta header of the profile request.
	Beta string `toml:"beta"`
	// CacheTTL is how long a good verdict is trusted.
	CacheTTL time.Duration `toml:"cache_ttl"`
}

// TokensEnabled reports whether static tokens are accepted.
func (c Config) TokensEnabled() bool { return c.Tokens == nil || *c.Tokens }

// ModeNames lists the modes that are on, in a fixed order.
func (c Config) ModeNames() []string {
	var names []string
	for _, m := range []struct {
		name string
		on   bool
	}{{ModeToken, c.TokensEnabled()}, {ModeOIDC, c.OIDC.Enabled}, {ModeGitHub, c.GitHub.Enabled}, {ModeClaude, c.Claude.Enabled}} {
		if m.on {
			names = append(names, m.name)
		}
	}
	return names
}

// Resolve returns c with every unset field of the modes given its default.
func (c Config) Resolve() Config {
	if c.FailureCacheTTL == 0 {
		c.FailureCacheTTL = DefaultFailureCacheTTL
	}
	if c.FailureCacheSize == 0 {
		c.FailureCacheSize = DefaultFailureCacheSize
	}
	if c.MaxChecksInFlight == 0 {
		c.MaxChecksInFlight = DefaultChecksInFlight
	}
	if c.OIDC.Audience == "" {
		c.OIDC.Audience = c.OIDC.ClientID
	}
	if len(c.OIDC.Scopes) == 0 {
		c.OIDC.Scopes = DefaultOIDCScopes
	}
	if c.OIDC.GroupsClaim == "" {
		c.OIDC.GroupsClaim = DefaultGroupsClaim
	}
	if c.OIDC.ClockSkew == 0 {
		c.OIDC.ClockSkew = DefaultClockSkew
	}
	if c.OIDC.JWKSRefreshInterval == 0 {
		c.OIDC.JWKSRefreshInterval = DefaultJWKSRefreshInterval
	}
	if c.GitHub.APIURL == "" {
		c.GitHub.APIURL = DefaultGitHubAPIURL
	}
	if c.GitHub.RepoHost == "" {
		c.GitHub.RepoHost = defaultRepoHost(c.GitHub.APIURL)
	}
	if c.GitHub.CacheTTL == 0 {
		c.GitHub.CacheTTL = DefaultVerdictTTL
	}
	if c.Claude.ProfileURL == "" {
		c.Claude.ProfileURL = DefaultClaudeProfileURL
	}
	if c.Claude.Beta == "" {
		c.Claude.Beta = DefaultClaudeBeta
	}
	if c.Claude.CacheTTL == 0 {
		c.Claude.CacheTTL = DefaultVerdictTTL
	}
	return c
}

// GitHubHost is the repo host whose slugs are owner/name (PROTOCOL.md
// section 7).
const GitHubHost = "github.com"

// defaultRepoHost is github.com for github.com's API and the API's host
// otherwise.
func defaultRepoHost(apiURL string) string {
	u, err := url.Parse(apiURL)
	if err != nil || u.Hostname() == "api.github.com" {
		return GitHubHost
	}
	return u.Host
}

// Validate reports the first invalid setting.
func (c Config) Validate() error {
	if len(c.ModeNames()) == 0 {
		return errors.New("auth: every mode is off; turn on tokens, oidc, github or claude")
	}
	if err := c.validateBounds(); err != nil {
		return fmt.Errorf("auth.%w", err)
	}
	if err := c.OIDC.validate(); err != nil {
		return fmt.Errorf("auth.oidc: %w", err)
	}
	if err := c.GitHub.validate(); err != nil {
		return fmt.Errorf("auth.github: %w", err)
	}
	if err := c.Claude.validate(); err != nil {
		return fmt.Errorf("auth.claude: %w", err)
	}
	return c.validateGrants()
}

func (c OIDCConfig) validate() error {
	if !c.Enabled {
		return nil
	}
	if c.Issuer == "" {
		return errors.New("issuer is required when oidc is enabled")
	}
	if err := loopback.CheckURL("issuer", c.Issuer); err != nil {
		return err
	}
	if c.ClientID == "" {
		return errors.New("client_id is required when oidc is enabled")
	}
	if c.ClockSkew < 0 || c.ClockSkew > maxClockSkew {
		return fmt.Errorf("clock_skew must be between 0 and %s", maxClockSkew)
	}
	if c.JWKSRefreshInterval != 0 && (c.JWKSRefreshInterval < time.Second || c.JWKSRefreshInterval > maxJWKSRefreshInterval) {
		return fmt.Errorf("jwks_refresh_interval must be between 1s and %s, got %s", maxJWKSRefreshInterval, c.JWKSRefreshInterval)
	}
	for _, s := range c.Scopes {
		if s == "" {
			return errors.New("scopes must not hold an empty scope")
		}
	}
	return nil
}

func (c GitHubConfig) validate() error {
	if !c.Enabled {
		return nil
	}
	if err := checkTTL(c.CacheTTL); err != nil {
		return err
	}
	if c.APIURL == "" {
		return nil
	}
	return loopback.CheckURL("api_url", c.APIURL)
}

func (c ClaudeConfig) validate() error {
	if !c.Enabled {
		return nil
	}
	if err := checkTTL(c.CacheTTL); err != nil {
		return err
	}
	if c.ProfileURL == "" {
		return nil
	}
	return loopback.CheckURL("profile_url", c.ProfileURL)
}

// validateBounds checks the bounds on asking the identity services.
func (c Config) validateBounds() error {
	if c.FailureCacheTTL < 0 || c.FailureCacheTTL > maxVerdictTTL {
		return fmt.Errorf("failure_cache_ttl must be between 0 and %s, got %s", maxVerdictTTL, c.FailureCacheTTL)
	}
	if c.FailureCacheSize < 0 || c.FailureCacheSize > maxFailureCacheSize {
		return fmt.Errorf("failure_cache_size must be between 0 and %d, got %d", maxFailureCacheSize, c.FailureCacheSize)
	}
	if c.MaxChecksInFlight < 0 || c.MaxChecksInFlight > maxChecksInFlight {
		return fmt.Errorf("max_checks_in_flight must be between 0 and %d, got %d", maxChecksInFlight, c.MaxChecksInFlight)
	}
	return nil
}

func checkTTL(d time.Duration) error {
	if d < 0 || d > maxVerdictTTL {
		return fmt.Errorf("cache_ttl must be between 0 and %s", maxVerdictTTL)
	}
	return nil
}
