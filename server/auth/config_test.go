package auth

import (
	"strings"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/store"
)

func TestConfigValidate(t *testing.T) {
	off := false
	oidc := OIDCConfig{Enabled: true, Issuer: "https://idp.acme.com", ClientID: "teammemd"}
	claude := ClaudeConfig{Enabled: true}
	eng := GrantRule{Subject: "group:eng", Repos: []string{"acme/**"}, Level: store.LevelWrite}
	tests := []struct {
		name string
		cfg  Config
		want string // "" for valid, else a fragment of the error
	}{
		{"zero value: static tokens", Config{}, ""},
		{"every mode off", Config{Tokens: &off}, "every mode is off"},
		{"oidc with a grant", Config{OIDC: oidc, Grants: []GrantRule{eng}}, ""},
		{"oidc without grants", Config{OIDC: oidc}, "admit no one"},
		{"oidc without issuer", Config{OIDC: OIDCConfig{Enabled: true, ClientID: "x"}, Grants: []GrantRule{eng}}, "issuer is required"},
		{"oidc without client id", Config{OIDC: OIDCConfig{Enabled: true, Issuer: "https://idp"}, Grants: []GrantRule{eng}}, "client_id is required"},
		{"oidc over plain http", Config{OIDC: OIDCConfig{Enabled: true, Issuer: "http://idp.acme.com", ClientID: "x"}, Grants: []GrantRule{eng}}, "must be https"},
		{"oidc over loopback http", Config{OIDC: OIDCConfig{Enabled: true, Issuer: "http://127.0.0.1:9/", ClientID: "x"}, Grants: []GrantRule{eng}}, ""},
		{"clock skew too large", Config{OIDC: OIDCConfig{Enabled: true, Issuer: "https://idp", ClientID: "x", ClockSkew: time.Hour}, Grants: []GrantRule{eng}}, "clock_skew"},
		{"keys fetched too often", Config{OIDC: OIDCConfig{Enabled: true, Issuer: "https://idp", ClientID: "x", JWKSRefreshInterval: time.Millisecond}, Grants: []GrantRule{eng}}, "auth.oidc: jwks_refresh_interval"},
		{"keys fetched too seldom", Config{OIDC: OIDCConfig{Enabled: true, Issuer: "https://idp", ClientID: "x", JWKSRefreshInterval: 2 * time.Hour}, Grants: []GrantRule{eng}}, "auth.oidc: jwks_refresh_interval"},
		{"group grant with oidc off", Config{Claude: claude, Grants: []GrantRule{eng, {Subject: "org:o", Repos: []string{"**"}, Level: "read"}}}, ""},
		{"only a group grant for claude", Config{Claude: claude, Grants: []GrantRule{eng}}, "claude is on"},
		{"claude with an org grant", Config{Claude: claude, Grants: []GrantRule{{Subject: "org:o", Repos: []string{"**"}, Level: "read"}}}, ""},
		{"claude without grants", Config{Claude: claude}, "claude is on"},
		{"claude profile url not https", Config{Claude: ClaudeConfig{Enabled: true, ProfileURL: "http://example.com/p"}}, "must be https"},
		{"github needs no grants", Config{GitHub: GitHubConfig{Enabled: true}}, ""},
		{"github ttl too long", Config{GitHub: GitHubConfig{Enabled: true, CacheTTL: 2 * time.Hour}}, "cache_ttl"},
		{"failure ttl too long", Config{FailureCacheTTL: 2 * time.Hour}, "auth.failure_cache_ttl"},
		{"negative failure ttl", Config{FailureCacheTTL: -time.Second}, "auth.failure_cache_ttl"},
		{"negative failure cache", Config{FailureCacheSize: -1}, "auth.failure_cache_size"},
		{"huge failure cache", Config{FailureCacheSize: 2_000_000}, "auth.failure_cache_size"},
		{"negative checks in flight", Config{MaxChecksInFlight: -1}, "auth.max_checks_in_flight"},
		{"too many checks in flight", Config{MaxChecksInFlight: 5000}, "auth.max_checks_in_flight"},
		{"unknown subject kind", Config{OIDC: oidc, Grants: []GrantRule{{Subject: "team:eng", Repos: []string{"**"}, Level: "read"}}}, "kind must be"},
		{"subject without value", Config{OIDC: oidc, Grants: []GrantRule{{Subject: "group:", Repos: []string{"**"}, Level: "read"}}}, "kind:value"},
		{"bad level", Config{OIDC: oidc, Grants: []GrantRule{{Subject: "group:eng", Repos: []string{"**"}, Level: "admin"}}}, "read, write or review"},
		{"no repos", Config{OIDC: oidc, Grants: []GrantRule{{Subject: "group:eng", Level: "read"}}}, "repos is empty"},
		{"bad pattern", Config{OIDC: oidc, Grants: []GrantRule{{Subject: "group:eng", Repos: []string{"acme/../x"}, Level: "read"}}}, "dot segment"},
		{"email of any domain", Config{OIDC: oidc, Grants: []GrantRule{{Subject: "email:*", Repos: []string{"**"}, Level: "read"}}}, "one @"},
		{"email of two @", Config{OIDC: oidc, Grants: []GrantRule{{Subject: "email:*@evil.com@acme.com", Repos: []string{"**"}, Level: "read"}}}, "one @"},
		{"email domain with a wildcard", Config{OIDC: oidc, Grants: []GrantRule{{Subject: "email:*@*.acme.com", Repos: []string{"**"}, Level: "read"}}}, "domain"},
		{"email without a local part", Config{OIDC: oidc, Grants: []GrantRule{{Subject: "email:@acme.com", Repos: []string{"**"}, Level: "read"}}}, "one @"},
	}
	for _, tt := range tests {
		err := tt.cfg.Validate()
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("Validate(%s) = %v, want nil", tt.name, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("Validate(%s) = %v, want an error saying %q", tt.name, err, tt.want)
		}
	}
}

func TestResolveDefaults(t *testing.T) {
	c := Config{OIDC: OIDCConfig{ClientID: "cli"}, GitHub: GitHubConfig{APIURL: "https://ghe.acme.com/api/v3"}}.Resolve()
	if c.OIDC.Audience != "cli" || c.OIDC.GroupsClaim != "groups" || c.OIDC.ClockSkew != DefaultClockSkew || len(c.OIDC.Scopes) == 0 {
		t.Errorf("Resolve().OIDC = %+v, want audience cli, groups claim, default skew and scopes", c.OIDC)
	}
	if c.GitHub.RepoHost != "ghe.acme.com" || c.Claude.ProfileURL != DefaultClaudeProfileURL || c.Claude.Beta != DefaultClaudeBeta {
		t.Errorf("Resolve() = %+v, want repo host ghe.acme.com and the claude.ai defaults", c)
	}
	if got := (Config{}).Resolve().GitHub.RepoHost; got != GitHubHost {
		t.Errorf("Resolve().GitHub.RepoHost = %q, want %q for api.github.com", got, GitHubHost)
	}
}

func TestFormOf(t *testing.T) {
	tests := []struct{ in, want string }{
		{"tmd_ABCDEF", ModeToken},
		{"sk-ant-oat01-xyz", ModeClaude},
		{"ghp_abc", ModeGitHub},
		{"github_pat_11AAA", ModeGitHub},
		{"gho_abc", ModeGitHub},
		{"0123456789abcdef0123456789abcdef01234567", ModeGitHub},
		{"eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln", ModeOIDC},
		{"eyJ0eXAiOiJKV1QifQ.e30.c2ln", ""}, // a header without alg
		{"a.b.c", ""},
		{"opaque", ""},
	}
	for _, tt := range tests {
		if got := FormOf(tt.in); got != tt.want {
			t.Errorf("FormOf(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestGrantMatch(t *testing.T) {
	id := Identity{Mode: ModeOIDC, Sub: "u1", Email: "Alice@ACME.com", Groups: []string{"eng", "ops"}}
	tests := []struct {
		subject string
		want    bool
	}{
		{"sub:u1", true},
		{"sub:u2", false},
		{"email:*@acme.com", true},
		{"email:alice@acme.com", true},
		{"email:*@acme.co", false},
		{"email:*@cme.com", false},
		{"email:*cme.com", false},
		{"group:ops", true},
		{"group:en", false},
		{"org:o1", false}, // a claude.ai subject never matches an OIDC identity
	}
	for _, tt := range tests {
		if got := (GrantRule{Subject: tt.subject}).matches(id); got != tt.want {
			t.Errorf("GrantRule{%s}.matches(alice) = %v, want %v", tt.subject, got, tt.want)
		}
	}
}

// TestGrantEmailMatch: an email grant matches a single well-formed address
// whose domain is the grant's, exactly.
func TestGrantEmailMatch(t *testing.T) {
	tests := []struct {
		subject, email string
		want           bool
	}{
		{"email:*@acme.com", "alice@acme.com", true},
		{"email:*@acme.com", "Alice@ACME.COM", true},
		{"email:a*@acme.com", "alice@acme.com", true},
		{"email:b*@acme.com", "alice@acme.com", false},
		{"email:*@acme.com", "mallory@evil.com@acme.com", false},
		{"email:mallory@evil.com@acme.com", "mallory@evil.com@acme.com", false},
		{"email:*@acme.com", "@acme.com", false},
		{"email:*@acme.com", "alice@", false},
		{"email:*@acme.com", "alice@sub.acme.com", false},
		{"email:*@acme.com", "alice@evilacme.com", false},
		{"email:*@acme.com", "alice acme@acme.com", false},
		{"email:*@acme.com", "alice\n@acme.com", false},
		{"email:*@acme.com", "alice", false},
	}
	for _, tt := range tests {
		for _, mode := range []string{ModeOIDC, ModeClaude} {
			id := Identity{Mode: mode, Email: tt.email}
			if got := (GrantRule{Subject: tt.subject}).matches(id); got != tt.want {
				t.Errorf("GrantRule{%s}.matches(%s %q) = %v, want %v", tt.subject, mode, tt.email, got, tt.want)
			}
		}
	}
}

// TestConfigGrantsFor checks that a config gives an identity the grants of
// the rules it holds, so that changing the rules changes what a kept
// identity may do.
func TestConfigGrantsFor(t *testing.T) {
	alice := Identity{Mode: ModeOIDC, Sub: "u1", Email: "alice@acme.com", Groups: []string{"eng"}}
	eng := GrantRule{Subject: "group:eng", Repos: []string{"acme/**", "docs/*"}, Level: store.LevelWrite}
	ops := GrantRule{Subject: "group:ops", Repos: []string{"ops/**"}, Level: store.LevelWrite}
	mail := GrantRule{Subject: "email:*@acme.com", Repos: []string{"wiki/*"}, Level: store.LevelRead}
	tests := []struct {
		rules []GrantRule
		want  string
	}{
		{[]GrantRule{eng}, "acme/**:write docs/*:write"},
		{[]GrantRule{ops}, ""},
		{[]GrantRule{ops, mail}, "wiki/*:read"},
		{nil, ""},
	}
	for _, tt := range tests {
		var got []string
		for _, g := range (Config{Grants: tt.rules}).GrantsFor(alice) {
			got = append(got, g.Pattern+":"+string(g.Level))
		}
		if strings.Join(got, " ") != tt.want {
			t.Errorf("GrantsFor(alice) under %v = %q, want %q", tt.rules, strings.Join(got, " "), tt.want)
		}
	}
}

func TestConfigModeOn(t *testing.T) {
	off := false
	cfg := Config{Tokens: &off, OIDC: OIDCConfig{Enabled: true}}
	for mode, want := range map[string]bool{ModeToken: false, ModeOIDC: true, ModeGitHub: false, ModeClaude: false, "": false} {
		if got := cfg.ModeOn(mode); got != want {
			t.Errorf("ModeOn(%q) = %v, want %v", mode, got, want)
		}
	}
}
