package auth

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"

	"github.com/teammemd/teammemd/server/api"
)

// OIDCAuthenticator accepts JWTs from the organisation's OpenID Connect
// provider: signature (keys from the provider's JWKS, fetched again when a
// token names a key it has not seen, at most once per refresh interval),
// issuer, audience, authorized party and expiry, with the configured clock
// skew. The provider is discovered on first use, so a server starts while
// its provider is away.
type OIDCAuthenticator struct {
	cfg   OIDCConfig
	rules []GrantRule
	up    *upstream
	now   func() time.Time

	mu       sync.Mutex
	provider *provider // nil until discovered
	failedAt time.Time
	failErr  error
}

func newOIDC(cfg OIDCConfig, rules []GrantRule, up *upstream, now func() time.Time) *OIDCAuthenticator {
	return &OIDCAuthenticator{cfg: cfg, rules: rules, up: up, now: now}
}

// Authenticate implements Authenticator.
func (a *OIDCAuthenticator) Authenticate(ctx context.Context, bearer string) (Principal, error) {
	p, err := a.ready(ctx)
	if err != nil {
		return Principal{}, err
	}
	head, _ := jwtHeader(bearer)
	if err := p.keys.ensure(ctx, head.KeyID); err != nil {
		return Principal{}, err
	}
	tok, err := p.verifier.Verify(ctx, bearer)
	var expired *oidc.TokenExpiredError
	switch {
	case errors.As(err, &expired):
		return Principal{}, reject(ModeOIDC, ReasonExpired, "your login has expired: run teammemd login again")
	case err != nil:
		return Principal{}, reject(ModeOIDC, ReasonInvalid,
			"the token's signature, issuer or audience is not this server's provider's: run teammemd login again")
	case tok.IssuedAt.After(a.now().Add(a.cfg.ClockSkew)):
		return Principal{}, reject(ModeOIDC, ReasonInvalid, "the token was issued in the future: check this machine's clock, then run teammemd login again")
	}
	var claims map[string]any
	if err := tok.Claims(&claims); err != nil {
		return Principal{}, reject(ModeOIDC, ReasonInvalid, "the token's claims are not a JSON object: run teammemd login again")
	}
	if err := a.checkParty(tok.Audience, claims["azp"]); err != nil {
		return Principal{}, err
	}
	id := a.identity(tok.Subject, claims)
	return Principal{Subject: oidcSubject(id), Mode: ModeOIDC, Grants: grantsFor(a.rules, id), Identity: &id}, nil
}

// oidcSubject is the subject of an OIDC identity: "oidc:" and the email
// the provider vouches for, else its subject id. A subject id that could
// be read as an email (it holds an @) is "oidc:sub:" and the id, which no
// email can be, so that a login whose email is not vouched for never
// takes the subject, and with it the personal lanes and admin rights, of
// the person whose email it names.
func oidcSubject(id Identity) string {
	switch {
	case id.Email != "":
		return "oidc:" + id.Email
	case strings.Contains(id.Sub, "@"):
		return "oidc:sub:" + id.Sub
	}
	return "oidc:" + id.Sub
}

// checkParty requires a token to have been issued to teammemd's client
// (OpenID Connect Core 1.0, section 3.1.3.7, steps 4 and 5): a token for
// several audiences must name the client as its authorized party (azp), and
// an azp, when present, must be the client, so that a token another client
// was given, which also lists this server's audience, is refused.
func (a *OIDCAuthenticator) checkParty(aud []string, azp any) error {
	party, _ := azp.(string)
	switch {
	case azp == nil && len(aud) > 1:
		return reject(ModeOIDC, ReasonInvalid, "the token names several audiences but not the client it was issued to (azp): run teammemd login again")
	case azp != nil && party != a.cfg.ClientID:
		return reject(ModeOIDC, ReasonInvalid, "the token was issued to another client (azp): run teammemd login again")
	}
	return nil
}

// identity reads the subject, a verified email and the groups of a token's
// claims.
func (a *OIDCAuthenticator) identity(sub string, claims map[string]any) Identity {
	id := Identity{Mode: ModeOIDC, Sub: sub}
	if email, _ := claims["email"].(string); email != "" && api.EmailVerified(claims["email_verified"]) {
		id.Email = email
	}
	switch g := claims[a.cfg.GroupsClaim].(type) {
	case string:
		id.Groups = []string{g}
	case []any:
		for _, v := range g {
			if s, ok := v.(string); ok {
				id.Groups = append(id.Groups, s)
			}
		}
	}
	return id
}

// Login describes the provider for "teammemd login": the endpoints come from
// its discovery document and are left out while it cannot be reached.
func (a *OIDCAuthenticator) Login(ctx context.Context) api.Login {
	l := api.Login{Issuer: a.cfg.Issuer, ClientID: a.cfg.ClientID, Scopes: a.cfg.Scopes}
	p, err := a.ready(ctx)
	if err != nil {
		return l
	}
	l.DeviceAuthorizationEndpoint, l.TokenEndpoint, l.RevocationEndpoint = p.doc.DeviceAuthURL, p.doc.TokenURL, p.doc.RevocationURL
	return l
}
