package auth

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"github.com/go-jose/go-jose/v4"

	"github.com/teammemd/teammemd/internal/loopback"
)

// discoveryRetry is how long a failed discovery of the provider, or a failed
// fetch of its keys, is remembered before a request may try again.
const discoveryRetry = 5 * time.Second

// providerDoc is what the server reads of the provider's discovery
// document.
type providerDoc struct {
	Issuer        string   `json:"issuer"`
	JWKSURI       string   `json:"jwks_uri"`
	DeviceAuthURL string   `json:"device_authorization_endpoint"`
	TokenURL      string   `json:"token_endpoint"`
	RevocationURL string   `json:"revocation_endpoint"`
	Algorithms    []string `json:"id_token_signing_alg_values_supported"`
}

// provider is the discovered provider: its discovery document, its keys and
// the verifier over them.
type provider struct {
	doc      *providerDoc
	keys     *keySet
	verifier *oidc.IDTokenVerifier
}

// ready returns the provider, discovering it first.
func (a *OIDCAuthenticator) ready(ctx context.Context) (*provider, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.provider != nil {
		return a.provider, nil
	}
	if a.failErr != nil && time.Since(a.failedAt) < discoveryRetry {
		return nil, a.failErr
	}
	doc, err := a.discover(context.WithoutCancel(ctx))
	if err != nil {
		a.failedAt, a.failErr = time.Now(), unavailable(ModeOIDC, "discover the provider: %w", err)
		return nil, a.failErr
	}
	algs := signingAlgs(doc.Algorithms)
	keys := newKeySet(doc.JWKSURI, algs, a.cfg.JWKSRefreshInterval, a.up, a.now)
	skew := a.cfg.ClockSkew
	a.provider = &provider{doc: doc, keys: keys, verifier: oidc.NewVerifier(a.cfg.Issuer, keys, &oidc.Config{
		ClientID:             a.cfg.Audience,
		SupportedSigningAlgs: algNames(algs),
		// A token stays good for skew after its expiry.
		Now: func() time.Time { return a.now().Add(-skew) },
	})}
	return a.provider, nil
}

// discover reads the provider's discovery document, which must name the
// configured issuer and keys fetched over https.
func (a *OIDCAuthenticator) discover(ctx context.Context) (*providerDoc, error) {
	var doc providerDoc
	u := strings.TrimSuffix(a.cfg.Issuer, "/") + "/.well-known/openid-configuration"
	ans, err := a.up.getJSON(ctx, ModeOIDC, u, "", nil, &doc)
	switch {
	case err != nil:
		return nil, err
	case ans.status != http.StatusOK:
		return nil, fmt.Errorf("%s answered %d", u, ans.status)
	case doc.Issuer != a.cfg.Issuer:
		return nil, fmt.Errorf("the discovery document names issuer %q, not the configured %q", doc.Issuer, a.cfg.Issuer)
	}
	if err := loopback.CheckURL("jwks_uri", doc.JWKSURI); err != nil {
		return nil, err
	}
	return &doc, nil
}

// verifiableAlgs are the signature algorithms a token may use, as go-oidc
// accepts them: public-key ones only, never "none" or a shared secret.
var verifiableAlgs = []jose.SignatureAlgorithm{
	jose.RS256, jose.RS384, jose.RS512, jose.ES256, jose.ES384, jose.ES512,
	jose.PS256, jose.PS384, jose.PS512, jose.EdDSA,
}

// signingAlgs are the algorithms the provider says it signs with that can
// be verified; RS256, which every provider must support, when it names
// none.
func signingAlgs(named []string) []jose.SignatureAlgorithm {
	var algs []jose.SignatureAlgorithm
	for _, alg := range verifiableAlgs {
		for _, n := range named {
			if string(alg) == n {
				algs = append(algs, alg)
			}
		}
	}
	if len(algs) == 0 {
		return []jose.SignatureAlgorithm{jose.RS256}
	}
	return algs
}

func algNames(algs []jose.SignatureAlgorithm) []string {
	names := make([]string, len(algs))
	for i, a := range algs {
		names[i] = string(a)
	}
	return names
}
