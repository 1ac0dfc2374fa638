package auth

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/store"
)

// maxCredentialBytes is the longest bearer worth judging: JWTs with many
// groups run to a few kilobytes.
const maxCredentialBytes = 16 << 10

// Options are what Modes needs besides its config.
type Options struct {
	// HTTPClient calls the OIDC provider, GitHub and claude.ai; nil means a
	// client with UpstreamTimeout.
	HTTPClient *http.Client
	// Now is the clock for token expiry and cached verdicts; nil means
	// time.Now.
	Now func() time.Time
	// Bindings keeps the GitHub mode's binding of each github:<login> to
	// the GitHub user id of the first user that signed in as it; required
	// when the GitHub mode is on.
	Bindings store.IdentityBindings
}

// Modes is the server's Authenticator when more than static tokens may be
// on: it tells each credential's mode by its form (tmd_ tokens, JWTs,
// claude.ai "sk-ant-" tokens, GitHub tokens) and hands it to that mode, or
// rejects it, saying which modes the server accepts.
type Modes struct {
	names  []string
	token  *TokenAuthenticator
	oidc   *OIDCAuthenticator
	github *GitHubAuthenticator
	claude *ClaudeAuthenticator
	// refused remembers, by hash, the credentials a service refused, for
	// refusedTTL, so that sending one again asks nobody.
	refused    *verdictCache[*RejectError]
	refusedTTL time.Duration
	now        func() time.Time
}

// credential is a bearer credential and its SHA-256, by which the caches
// know it: it is hashed once per request.
type credential struct {
	secret, hash string
}

// New builds the modes cfg turns on; tokens backs static tokens.
func New(cfg Config, tokens store.Tokens, opts Options) (*Modes, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.Resolve()
	client := opts.HTTPClient
	if client == nil {
		client = &http.Client{Timeout: UpstreamTimeout}
	}
	up := newUpstream(client, cfg.MaxChecksInFlight)
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	m := &Modes{
		names:   cfg.ModeNames(),
		refused: newVerdictCache[*RejectError](cfg.FailureCacheSize), refusedTTL: cfg.FailureCacheTTL, now: now,
	}
	if cfg.TokensEnabled() {
		if tokens == nil {
			return nil, errors.New("auth: static tokens are on but there is no token store")
		}
		m.token = NewTokenAuthenticator(tokens)
	}
	if cfg.OIDC.Enabled {
		m.oidc = newOIDC(cfg.OIDC, cfg.Grants, up, now)
	}
	if cfg.GitHub.Enabled {
		if opts.Bindings == nil {
			return nil, errors.New("auth: GitHub tokens are on but there is no store for the bindings of logins to GitHub user ids")
		}
		m.github = newGitHub(cfg.GitHub, up, now, opts.Bindings)
	}
	if cfg.Claude.Enabled {
		m.claude = newClaude(cfg.Claude, cfg.Grants, up, now)
	}
	return m, nil
}

// ModeNames lists the modes that are on.
func (m *Modes) ModeNames() []string { return m.names }

// Login describes device login when OIDC is on; nil otherwise.
func (m *Modes) Login(ctx context.Context) *api.Login {
	if m.oidc == nil {
		return nil
	}
	l := m.oidc.Login(ctx)
	return &l
}

// Authenticate implements Authenticator.
func (m *Modes) Authenticate(ctx context.Context, bearer string) (Principal, error) {
	return m.AuthenticateRepo(ctx, bearer, "")
}

// AuthenticateRepo implements RepoAuthenticator.
func (m *Modes) AuthenticateRepo(ctx context.Context, bearer, repo string) (Principal, error) {
	if bearer == "" || len(bearer) > maxCredentialBytes {
		return Principal{}, reject("", ReasonUnrecognised, "the credential is empty or too long")
	}
	switch form := FormOf(bearer); {
	case form == ModeOIDC && m.oidc != nil:
		return m.remembered(bearer, func(c credential) (Principal, error) { return m.oidc.Authenticate(ctx, c.secret) })
	case form == ModeGitHub && m.github != nil:
		return m.remembered(bearer, func(c credential) (Principal, error) { return m.github.authenticate(ctx, c, repo) })
	case form == ModeClaude && m.claude != nil:
		return m.remembered(bearer, func(c credential) (Principal, error) { return m.claude.authenticate(ctx, c) })
	case (form == ModeToken || form == "") && m.token != nil:
		return m.staticToken(ctx, bearer, form)
	case form == "":
		return Principal{}, reject("", ReasonUnrecognised, "this credential is not of a kind this server accepts; it accepts: "+m.accepted())
	default:
		return Principal{}, reject(form, ReasonModeOff, fmt.Sprintf("this server does not accept %s credentials; it accepts: %s", form, m.accepted()))
	}
}

// remembered runs check, a mode that asks an outside service, unless that
// service refused bearer within the failure TTL: then the refusal is
// answered again. A refusal is remembered; a service that could not answer
// is not.
func (m *Modes) remembered(bearer string, check func(credential) (Principal, error)) (Principal, error) {
	c := credential{secret: bearer, hash: HashToken(bearer)}
	if rej, ok := m.refused.get(c.hash, m.now()); ok {
		return Principal{}, rej
	}
	p, err := check(c)
	var rej *RejectError
	if errors.As(err, &rej) {
		now := m.now()
		m.refused.put(c.hash, rej, now.Add(m.refusedTTL), now)
	}
	return p, err
}

// staticToken looks bearer up among the static tokens; form is "" for a
// bearer of no known form, which may still be a token made elsewhere.
func (m *Modes) staticToken(ctx context.Context, bearer, form string) (Principal, error) {
	p, err := m.token.Authenticate(ctx, bearer)
	if errors.Is(err, ErrUnauthenticated) {
		msg := "unknown or revoked token: ask the server's admin for a new one (teammemd token create)"
		if form == "" && len(m.names) > 1 {
			msg = "not a token this server knows; it accepts: " + m.accepted()
		}
		return Principal{}, reject(ModeToken, ReasonUnknown, msg)
	}
	return p, err
}

// accepted describes the modes that are on, for a message.
func (m *Modes) accepted() string {
	desc := map[string]string{
		ModeToken:  "tmd_ tokens",
		ModeOIDC:   "OIDC logins (teammemd login)",
		ModeGitHub: "GitHub tokens",
		ModeClaude: "Claude account tokens (Claude Code)",
	}
	parts := make([]string, len(m.names))
	for i, n := range m.names {
		parts[i] = desc[n]
	}
	return strings.Join(parts, ", ")
}

// FormOf tells a credential's mode by its form: ModeToken for "tmd_",
// ModeClaude for claude.ai's "sk-ant-" tokens, ModeGitHub for GitHub's token
// prefixes and classic 40-hex tokens, ModeOIDC for a JWT, "" otherwise.
func FormOf(bearer string) string {
	switch {
	case strings.HasPrefix(bearer, TokenPrefix):
		return ModeToken
	case strings.HasPrefix(bearer, "sk-ant-"):
		return ModeClaude
	case githubForm(bearer):
		return ModeGitHub
	case jwtForm(bearer):
		return ModeOIDC
	}
	return ""
}

// githubPrefixes start GitHub's tokens: personal (classic and fine-grained),
// OAuth, user-to-server, server-to-server and refresh.
var githubPrefixes = []string{"ghp_", "github_pat_", "gho_", "ghu_", "ghs_", "ghr_"}

func githubForm(s string) bool {
	for _, p := range githubPrefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	if len(s) != 40 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9') && !('a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// jwtForm reports a compact JWS whose header is a JSON object naming an alg.
func jwtForm(s string) bool {
	h, ok := jwtHeader(s)
	return ok && h.Alg != ""
}

// jwtHead is what the server reads of a JWT's header before verifying it.
type jwtHead struct {
	Alg   string `json:"alg"`
	KeyID string `json:"kid"`
}

// jwtHeader decodes the header of a compact JWS of three parts.
func jwtHeader(s string) (jwtHead, bool) {
	var h jwtHead
	head, rest, ok := strings.Cut(s, ".")
	if !ok || strings.Count(rest, ".") != 1 {
		return h, false
	}
	raw, err := base64.RawURLEncoding.DecodeString(head)
	if err != nil {
		return h, false
	}
	return h, json.Unmarshal(raw, &h) == nil
}

// CheckRevocations checks the static tokens' revocations
// (TokenAuthenticator.CheckRevocations); with static tokens off there is
// nothing to check.
func (m *Modes) CheckRevocations(ctx context.Context) error {
	if m.token == nil {
		return nil
	}
	return m.token.CheckRevocations(ctx)
}
