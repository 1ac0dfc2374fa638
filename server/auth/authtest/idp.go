package authtest

import (
	"cmp"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"maps"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// DeviceGrantType is the grant_type of the device code token request.
const DeviceGrantType = "urn:ietf:params:oauth:grant-type:device_code"

// User is someone the fake provider can log in.
type User struct {
	Sub, Email    string
	EmailVerified bool
	Groups        []string
}

// IdP is a fake OpenID Connect provider: a discovery document, a JWKS of EC
// keys made at start (Rotate replaces them), the device authorization
// endpoint, an authorization endpoint for the code flow with PKCE (which
// signs in the user SignInAs names), a token endpoint for the device code,
// authorization code and refresh token grants (refresh tokens rotate on
// use), and a revocation endpoint. Its ID tokens
// are real ES256 JWTs for ClientID, valid for TokenTTL on its clock; its
// access tokens are opaque, as many providers' are, for the provider's own
// APIs.
type IdP struct {
	// URL is the issuer.
	URL      string
	ClientID string
	TokenTTL time.Duration
	// OnDeviceCode, when set, is called with each user code issued, as the
	// person at the browser would see it.
	OnDeviceCode func(userCode string)
	// OnRefresh, when set, is called on each refresh token request before
	// it is answered; a test blocks in it to hold a refresh in flight.
	OnRefresh func()
	// RefreshWithoutIDToken answers refreshes without an ID token, which
	// OpenID Connect allows (Core 1.0, section 12.2).
	RefreshWithoutIDToken bool
	// Discoveries and KeyFetches count the requests for the discovery
	// document and for the key set.
	Discoveries, KeyFetches atomic.Int64

	clock   *Clock
	mu      sync.Mutex
	key     *ecdsa.PrivateKey
	kid     string
	jwksURI string                  // jwks_uri of the discovery document; the provider's own when empty
	devices map[string]*deviceGrant // device code -> grant
	refresh map[string]User         // valid refresh tokens
	codes   map[string]authCode     // authorization codes not yet redeemed
	// signedIn is who the authorization endpoint signs in; nil refuses.
	signedIn *User
}

type deviceGrant struct {
	userCode string
	expires  time.Time
	user     *User
}

// NewIdP starts a provider for client id "teammemd-cli" with tokens valid
// for an hour on clock.
func NewIdP(t testing.TB, clock *Clock) *IdP {
	p := &IdP{ClientID: "teammemd-cli", TokenTTL: time.Hour, clock: clock,
		devices: map[string]*deviceGrant{}, refresh: map[string]User{}, codes: map[string]authCode{}}
	p.Rotate()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", p.discovery)
	mux.HandleFunc("GET /jwks", p.jwks)
	mux.HandleFunc("GET /authorize", p.authorize)
	mux.HandleFunc("POST /device/code", p.deviceCode)
	mux.HandleFunc("POST /token", p.token)
	mux.HandleFunc("POST /revoke", p.revoke)
	p.URL = serve(t, mux).URL
	return p
}

// Rotate replaces the signing key: tokens signed before no longer verify
// once a verifier has fetched the new key set.
func (p *IdP) Rotate() {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		panic(fmt.Sprintf("authtest: generate key: %v", err))
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.key, p.kid = key, randomHex(8)
}

// KeyID is the id of the current signing key.
func (p *IdP) KeyID() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.kid
}

// Approve logs u in on the device that was given userCode.
func (p *IdP) Approve(userCode string, u User) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, g := range p.devices {
		if g.userCode == userCode {
			g.user = &u
			return nil
		}
	}
	return fmt.Errorf("authtest: no device login with user code %q", userCode)
}

// SetJWKSURI makes the discovery document name uri as the key set's
// address instead of the provider's own.
func (p *IdP) SetJWKSURI(uri string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.jwksURI = uri
}

// IDToken signs an ID token for u valid for ttl from the provider's clock,
// with aud set to audience.
func (p *IdP) IDToken(u User, audience string, ttl time.Duration) string {
	return p.IDTokenWith(u, ttl, map[string]any{"aud": audience})
}

// IDTokenWith signs an ID token for u for the provider's client, valid for
// ttl, with the claims in extra added or replacing its own (such as an aud
// of several audiences and an azp).
func (p *IdP) IDTokenWith(u User, ttl time.Duration, extra map[string]any) string {
	p.mu.Lock()
	key, kid := p.key, p.kid
	p.mu.Unlock()
	return sign(key, kid, p.claims(u, ttl, extra))
}

// Forge signs a token for u that names key kid, with a key the provider
// never published: a stolen or made-up token, whose signature does not
// verify whether kid is the provider's or not.
func (p *IdP) Forge(u User, kid string) string {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		panic(fmt.Sprintf("authtest: generate key: %v", err))
	}
	return sign(key, kid, p.claims(u, time.Hour, nil))
}

func (p *IdP) claims(u User, ttl time.Duration, extra map[string]any) map[string]any {
	now := p.clock.Now()
	claims := map[string]any{
		"iss": p.URL, "sub": u.Sub, "aud": p.ClientID, "iat": now.Unix(), "exp": now.Add(ttl).Unix(),
		"email": u.Email, "email_verified": u.EmailVerified, "groups": u.Groups,
	}
	maps.Copy(claims, extra)
	return claims
}

func sign(key *ecdsa.PrivateKey, kid string, claims map[string]any) string {
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key},
		(&jose.SignerOptions{}).WithType("JWT").WithHeader("kid", kid))
	if err != nil {
		panic(fmt.Sprintf("authtest: signer: %v", err))
	}
	raw, err := jwt.Signed(signer).Claims(claims).Serialize()
	if err != nil {
		panic(fmt.Sprintf("authtest: sign: %v", err))
	}
	return raw
}

func (p *IdP) discovery(w http.ResponseWriter, _ *http.Request) {
	p.Discoveries.Add(1)
	p.mu.Lock()
	jwksURI := cmp.Or(p.jwksURI, p.URL+"/jwks")
	p.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{
		"issuer": p.URL, "jwks_uri": jwksURI,
		"authorization_endpoint":                p.URL + "/authorize",
		"device_authorization_endpoint":         p.URL + "/device/code",
		"token_endpoint":                        p.URL + "/token",
		"revocation_endpoint":                   p.URL + "/revoke",
		"id_token_signing_alg_values_supported": []string{"ES256"},
		"grant_types_supported":                 []string{DeviceGrantType, "authorization_code", "refresh_token"},
		"code_challenge_methods_supported":      []string{"S256"},
		"response_types_supported":              []string{"code"},
		"subject_types_supported":               []string{"public"},
	})
}

func (p *IdP) jwks(w http.ResponseWriter, _ *http.Request) {
	p.KeyFetches.Add(1)
	p.mu.Lock()
	set := jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &p.key.PublicKey, KeyID: p.kid, Algorithm: "ES256", Use: "sig"}}}
	p.mu.Unlock()
	writeJSON(w, http.StatusOK, set)
}

func (p *IdP) deviceCode(w http.ResponseWriter, r *http.Request) {
	if clientID(r) != p.ClientID {
		oauthError(w, http.StatusUnauthorized, "invalid_client")
		return
	}
	code, user := randomHex(16), strings.ToUpper(randomHex(2)+"-"+randomHex(2))
	p.mu.Lock()
	p.devices[code] = &deviceGrant{userCode: user, expires: p.clock.Now().Add(10 * time.Minute)}
	hook := p.OnDeviceCode
	p.mu.Unlock()
	if hook != nil {
		hook(user)
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"device_code": code, "user_code": user, "verification_uri": p.URL + "/device",
		"verification_uri_complete": p.URL + "/device?user_code=" + user, "expires_in": 600, "interval": 1,
	})
}

func (p *IdP) token(w http.ResponseWriter, r *http.Request) {
	if clientID(r) != p.ClientID {
		oauthError(w, http.StatusUnauthorized, "invalid_client")
		return
	}
	var u User
	var errCode, nonce string
	withID := true
	switch r.PostFormValue("grant_type") {
	case "authorization_code":
		u, nonce, errCode = p.redeemCode(r)
	case DeviceGrantType:
		u, errCode = p.redeemDevice(r.PostFormValue("device_code"))
	case "refresh_token":
		u, errCode = p.redeemRefresh(r.PostFormValue("refresh_token"))
		p.mu.Lock()
		withID = !p.RefreshWithoutIDToken
		p.mu.Unlock()
	default:
		errCode = "unsupported_grant_type"
	}
	if errCode != "" {
		oauthError(w, http.StatusBadRequest, errCode)
		return
	}
	p.issue(w, u, withID, nonce)
}

// redeemDevice answers a device code poll.
func (p *IdP) redeemDevice(code string) (User, string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	g, ok := p.devices[code]
	switch {
	case !ok:
		return User{}, "invalid_grant"
	case p.clock.Now().After(g.expires):
		delete(p.devices, code)
		return User{}, "expired_token"
	case g.user == nil:
		return User{}, "authorization_pending"
	}
	delete(p.devices, code)
	return *g.user, ""
}

// redeemRefresh uses up a refresh token, once OnRefresh has returned.
func (p *IdP) redeemRefresh(rt string) (User, string) {
	p.mu.Lock()
	hook := p.OnRefresh
	p.mu.Unlock()
	if hook != nil {
		hook()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	u, ok := p.refresh[rt]
	if !ok {
		return User{}, "invalid_grant"
	}
	delete(p.refresh, rt)
	return u, ""
}

// issue answers an opaque access token for u, a new refresh token and,
// withID, an ID token, with the nonce of the sign-in when it has one.
func (p *IdP) issue(w http.ResponseWriter, u User, withID bool, nonce string) {
	rt := "rt-" + randomHex(16)
	p.mu.Lock()
	p.refresh[rt] = u
	p.mu.Unlock()
	answer := map[string]any{
		"access_token": "at-" + randomHex(16), "token_type": "Bearer",
		"expires_in": int(p.TokenTTL / time.Second), "refresh_token": rt,
	}
	if withID {
		extra := map[string]any{"aud": p.ClientID}
		if nonce != "" {
			extra["nonce"] = nonce
		}
		answer["id_token"] = p.IDTokenWith(u, p.TokenTTL, extra)
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, answer)
}

// revoke forgets a refresh token (RFC 7009: unknown tokens are not an error).
func (p *IdP) revoke(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	delete(p.refresh, r.PostFormValue("token"))
	p.mu.Unlock()
	w.WriteHeader(http.StatusOK)
}

// RevokeAll forgets every refresh token, as an admin disabling users would.
func (p *IdP) RevokeAll() {
	p.mu.Lock()
	defer p.mu.Unlock()
	clear(p.refresh)
}

// RefreshTokens counts the refresh tokens still valid.
func (p *IdP) RefreshTokens() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.refresh)
}

func clientID(r *http.Request) string {
	if id, _, ok := r.BasicAuth(); ok {
		return id
	}
	return r.PostFormValue("client_id")
}

func oauthError(w http.ResponseWriter, status int, code string) {
	writeJSON(w, status, map[string]string{"error": code})
}

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(fmt.Sprintf("authtest: random: %v", err))
	}
	return hex.EncodeToString(b)
}
