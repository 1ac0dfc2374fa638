package auth

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"

	"github.com/teammemd/teammemd/internal/loopback"
	"github.com/teammemd/teammemd/server/api"
)

// discoveryRetry is how long a failed discovery of the provider is
// remembered before the next request tries again.
const discoveryRetry = 5 * time.Second

// OIDCAuthenticator accepts JWTs from the organisation's OpenID Connect
// provider: signature (keys from the provider's JWKS, fetched again when a
// token names a key it has not seen), issuer, audience and expiry, with the
// configured clock skew. The provider is discovered on first use, so a
// server starts while its provider is away.
type OIDCAuthenticator struct {
	cfg    OIDCConfig
	rules  []GrantRule
	client *http.Client
	now    func() time.Time

	mu       sync.Mutex
	provider *oidc.Provider
	verifier *oidc.IDTokenVerifier
	failedAt time.Time
	failErr  error
}

func newOIDC(cfg OIDCConfig, rules []GrantRule, client *http.Client, now func() time.Time) *OIDCAuthenticator {
	return &OIDCAuthenticator{cfg: cfg, rules: rules, client: client, now: now}
}

// ready returns the provider and its verifier, discovering them first.
func (a *OIDCAuthenticator) ready(ctx context.Context) (*oidc.Provider, *oidc.IDTokenVerifier, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.verifier != nil {
		return a.provider, a.verifier, nil
	}
	if a.failErr != nil && time.Since(a.failedAt) < discoveryRetry {
		return nil, nil, a.failErr
	}
	p, err := oidc.NewProvider(oidc.ClientContext(context.WithoutCancel(ctx), a.client), a.cfg.Issuer)
	if err == nil {
		err = checkKeysURL(p)
	}
	if err != nil {
		a.failedAt, a.failErr = time.Now(), unavailable(ModeOIDC, "discover the provider: %w", err)
		return nil, nil, a.failErr
	}
	skew := a.cfg.ClockSkew
	a.provider = p
	a.verifier = p.Verifier(&oidc.Config{
		ClientID: a.cfg.Audience,
		// A token stays good for skew after its expiry.
		Now: func() time.Time { return a.now().Add(-skew) },
	})
	return a.provider, a.verifier, nil
}

// checkKeysURL requires the key set the provider's discovery document names
// to be fetched over https, as the issuer is.
func checkKeysURL(p *oidc.Provider) error {
	var doc struct {
		JWKSURI string `json:"jwks_uri"`
	}
	if err := p.Claims(&doc); err != nil {
		return fmt.Errorf("read the discovery document: %w", err)
	}
	return loopback.CheckURL("jwks_uri", doc.JWKSURI)
}

// Authenticate implements Authenticator.
func (a *OIDCAuthenticator) Authenticate(ctx context.Context, bearer string) (Principal, error) {
	_, v, err := a.ready(ctx)
	if err != nil {
		return Principal{}, err
	}
	tok, err := v.Verify(ctx, bearer)
	var expired *oidc.TokenExpiredError
	switch {
	case errors.As(err, &expired):
		return Principal{}, reject(ModeOIDC, ReasonExpired, "your login has expired: run teammemd login again")
	case err != nil && strings.Contains(err.Error(), "fetching keys"):
		return Principal{}, unavailable(ModeOIDC, "fetch the provider's keys: %w", err)
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
	return Principal{Subject: "oidc:" + cmp.Or(id.Email, id.Sub), Mode: ModeOIDC, Grants: grantsFor(a.rules, id)}, nil
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
	if email, _ := claims["email"].(string); email != "" && verified(claims["email_verified"]) {
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

// verified reads an email_verified claim, which some providers send as a
// string.
func verified(v any) bool {
	switch b := v.(type) {
	case bool:
		return b
	case string:
		return b == "true"
	}
	return false
}

// Login describes the provider for "teammemd login": the endpoints come from
// its discovery document and are left out while it cannot be reached.
func (a *OIDCAuthenticator) Login(ctx context.Context) api.Login {
	l := api.Login{Issuer: a.cfg.Issuer, ClientID: a.cfg.ClientID, Scopes: a.cfg.Scopes}
	p, _, err := a.ready(ctx)
	if err != nil {
		return l
	}
	ep := p.Endpoint()
	l.DeviceAuthorizationEndpoint, l.TokenEndpoint = ep.DeviceAuthURL, ep.TokenURL
	var extra struct {
		Revocation string `json:"revocation_endpoint"`
	}
	if err := p.Claims(&extra); err == nil {
		l.RevocationEndpoint = extra.Revocation
	}
	return l
}
