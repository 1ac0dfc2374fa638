package webui

import (
	"context"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"

	"github.com/teammemd/teammemd/internal/loopback"
	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/auth"
)

// discoveryRetry is how long a failed discovery of the provider is
// remembered before a sign-in tries again.
const discoveryRetry = 5 * time.Second

// oidcFlow signs browsers in with the organisation's provider: the
// authorization code flow with PKCE, a state and a nonce. The ID token it
// ends with is checked by the server's own OIDC mode, as a bearer JWT is.
type oidcFlow struct {
	cfg    OIDC
	client *http.Client

	mu       sync.Mutex
	endpoint *oauth2.Endpoint // nil until discovered
	failedAt time.Time
	failErr  error
}

func newOIDCFlow(cfg OIDC) *oidcFlow {
	client := cfg.HTTPClient
	if client == nil {
		client = &http.Client{Timeout: 10 * time.Second}
	}
	return &oidcFlow{cfg: cfg, client: client}
}

// discover reads the provider's authorization and token endpoints once.
func (f *oidcFlow) discover(ctx context.Context) (oauth2.Endpoint, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.endpoint != nil {
		return *f.endpoint, nil
	}
	if f.failErr != nil && time.Since(f.failedAt) < discoveryRetry {
		return oauth2.Endpoint{}, f.failErr
	}
	p, err := oidc.NewProvider(oidc.ClientContext(ctx, f.client), f.cfg.Issuer)
	if err == nil {
		ep := p.Endpoint()
		err = cmpErr(loopback.CheckURL("authorization_endpoint", ep.AuthURL), loopback.CheckURL("token_endpoint", ep.TokenURL))
		if err == nil {
			f.endpoint = &ep
			return ep, nil
		}
	}
	f.failedAt, f.failErr = time.Now(), fmt.Errorf("discover the OpenID Connect provider %s: %w", f.cfg.Issuer, err)
	return oauth2.Endpoint{}, f.failErr
}

func cmpErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// config is the OAuth 2 client of a sign-in sent back to redirect.
func (f *oidcFlow) config(ep oauth2.Endpoint, redirect string) *oauth2.Config {
	return &oauth2.Config{ClientID: f.cfg.ClientID, Endpoint: ep, RedirectURL: redirect, Scopes: f.cfg.Scopes}
}

// redirectURL is where the provider sends the browser back to.
func (u *UI) redirectURL(r *http.Request) string {
	return u.baseURL(r) + Prefix + "/signin/callback"
}

// host is the host the view is reached at.
func (u *UI) host(r *http.Request) string {
	base := u.baseURL(r)
	if i := strings.Index(base, "://"); i >= 0 {
		return base[i+3:]
	}
	return base
}

// serveOIDCStart begins a sign-in with the provider: a session that holds
// the state, the nonce and the PKCE verifier, then a page that sends the
// browser on to the provider.
func (u *UI) serveOIDCStart(w http.ResponseWriter, r *http.Request) {
	if !u.validPre(r) {
		u.fail(w, r, nil, errForged)
		return
	}
	if u.oidc == nil {
		u.showSignIn(w, r, http.StatusForbidden, "this server does not sign in with an OpenID Connect provider")
		return
	}
	ep, err := u.oidc.discover(r.Context())
	if err != nil {
		u.log.WarnContext(r.Context(), "web sign-in: provider unreachable", "err", err)
		u.showSignIn(w, r, http.StatusServiceUnavailable, "the sign-in provider cannot be reached now; try again in a moment")
		return
	}
	login, err := newPendingLogin()
	if err != nil {
		u.fail(w, r, nil, err)
		return
	}
	s := &session{Login: login}
	if err := u.startSession(w, r, s, loginTTL); err != nil {
		u.fail(w, r, nil, err)
		return
	}
	target := u.oidc.config(ep, u.redirectURL(r)).AuthCodeURL(login.State+"."+encodeNext(r.PostFormValue("next")),
		oauth2.S256ChallengeOption(login.Verifier), oidc.Nonce(login.Nonce))
	// A page that moves on to the provider, not a redirect: browsers hold
	// a form's redirect to the Content-Security-Policy's form-action,
	// which allows this view alone.
	u.render(w, r, http.StatusOK, "signin-continue", &view{Title: "Signing in", Page: target})
}

func newPendingLogin() (*pendingLogin, error) {
	state, err := randomToken()
	if err != nil {
		return nil, err
	}
	nonce, err := randomToken()
	if err != nil {
		return nil, err
	}
	return &pendingLogin{State: state, Nonce: nonce, Verifier: oauth2.GenerateVerifier()}, nil
}

// encodeNext carries the page to go to after the sign-in in the state.
func encodeNext(next string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(safeNext(next)))
}

func decodeNext(s string) string {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return Prefix + "/"
	}
	return safeNext(string(b))
}

// serveOIDCCallback finishes a sign-in with the provider: the state must
// be the session's, the code is redeemed with the PKCE verifier, and the
// ID token must pass the server's OIDC check and carry the session's
// nonce.
func (u *UI) serveOIDCCallback(w http.ResponseWriter, r *http.Request) {
	s, err := u.loadSession(r)
	if err != nil {
		u.fail(w, r, nil, err)
		return
	}
	q := r.URL.Query()
	state, next, _ := strings.Cut(q.Get("state"), ".")
	switch {
	case u.oidc == nil:
		u.fail(w, r, nil, notFound())
		return
	case s == nil || s.Login == nil || !equal(state, s.Login.State):
		u.showSignIn(w, r, http.StatusBadRequest, "this sign-in was not started here, or took over 10 minutes: sign in again")
		return
	case q.Get("error") != "":
		u.showSignIn(w, r, http.StatusForbidden, "the sign-in provider refused: "+api.Printable(q.Get("error")))
		return
	}
	p, err := u.redeem(r, s.Login, q.Get("code"))
	if err != nil {
		u.refuseSignIn(w, r, err)
		return
	}
	u.finishSignIn(w, r, s, &session{Subject: p.Subject, Mode: p.Mode, Grants: p.Grants, Identity: p.Identity}, decodeNext(next))
}

// redeem trades code for an ID token and checks it.
func (u *UI) redeem(r *http.Request, login *pendingLogin, code string) (auth.Principal, error) {
	ep, err := u.oidc.discover(r.Context())
	if err != nil {
		return auth.Principal{}, err
	}
	ctx := context.WithValue(r.Context(), oauth2.HTTPClient, u.oidc.client)
	tok, err := u.oidc.config(ep, u.redirectURL(r)).Exchange(ctx, code, oauth2.VerifierOption(login.Verifier))
	if err != nil {
		return auth.Principal{}, refusal("the sign-in provider did not accept this sign-in's code: sign in again")
	}
	idToken, _ := tok.Extra("id_token").(string)
	if idToken == "" {
		return auth.Principal{}, refusal("the sign-in provider sent no ID token: ask for the openid scope")
	}
	p, err := u.backend.SignIn(r, idToken)
	if err != nil {
		return auth.Principal{}, inBrowser(err)
	}
	if !equal(tokenNonce(idToken), login.Nonce) {
		return auth.Principal{}, refusal("the ID token is not of this sign-in (its nonce differs): sign in again")
	}
	return p, nil
}

// tokenNonce reads the nonce claim of a JWT whose signature the server
// already checked.
func tokenNonce(jwt string) string {
	parts := strings.Split(jwt, ".")
	if len(parts) != 3 {
		return ""
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return ""
	}
	var claims struct {
		Nonce string `json:"nonce"`
	}
	if json.Unmarshal(payload, &claims) != nil {
		return ""
	}
	return claims.Nonce
}

// equal compares two secrets in constant time; an empty one equals
// nothing.
func equal(a, b string) bool {
	return a != "" && subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}

// inBrowser rewords the server's refusal of the provider's ID token for
// the browser, where the fix is to sign in again, not the command line's
// teammemd login.
func inBrowser(err error) error {
	var e *api.Error
	if !errors.As(err, &e) || !strings.Contains(e.Message, "teammemd login") {
		return err
	}
	c := *e
	c.Message = strings.ReplaceAll(c.Message, "run teammemd login again", "sign in again")
	return &c
}

func refusal(msg string) *api.Error {
	return api.NewError(http.StatusUnauthorized, api.CodeUnauthenticated, msg)
}
