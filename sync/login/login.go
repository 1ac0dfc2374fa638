// Package login is the client side of logging in to a teammemd server with
// the organisation's identity: it reads the server's discovery document,
// runs the OAuth 2.0 device authorization grant against the identity
// provider it names, keeps the resulting login (its tokens in the OS
// keyring where one answers, the rest in a 0600 file per server), and hands
// the sync client a token source that refreshes the login before it
// expires and picks up a new login without a restart.
package login

import (
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"golang.org/x/oauth2"

	"github.com/teammemd/teammemd/internal/loopback"
	"github.com/teammemd/teammemd/server/api"
)

// Config is the [login] section of teammemd's config file: an identity
// provider to log in with when the server's discovery document names none,
// or names another. Empty fields take the server's values.
type Config struct {
	// Issuer is the provider's issuer URL; its discovery document names
	// the device and token endpoints.
	Issuer string `toml:"issuer"`
	// ClientID is the public OAuth client teammemd logs in as.
	ClientID string `toml:"client_id"`
	// Scopes are the scopes asked for.
	Scopes []string `toml:"scopes"`
	// Storage is where teammemd login keeps the tokens: auto (the OS
	// keyring when it answers, else the login file), keyring or file.
	Storage string `toml:"storage"`
}

// Validate checks the section; every field is optional.
func (c Config) Validate() error {
	if _, err := ParseStorage(c.Storage); err != nil {
		return fmt.Errorf("login.storage: %w", err)
	}
	if c.Issuer == "" {
		return nil
	}
	return loopback.CheckURL("login.issuer", c.Issuer)
}

// Record is one stored login: the tokens, and what refreshing them needs.
type Record struct {
	Server             string    `json:"server"`
	Issuer             string    `json:"issuer"`
	ClientID           string    `json:"client_id"`
	TokenEndpoint      string    `json:"token_endpoint"`
	RevocationEndpoint string    `json:"revocation_endpoint,omitempty"`
	AccessToken        string    `json:"access_token"`
	IDToken            string    `json:"id_token,omitempty"`
	RefreshToken       string    `json:"refresh_token,omitempty"`
	Expiry             time.Time `json:"expiry"`
	// Who is the verified email, else the subject id, the ID token
	// names, for messages.
	Who string `json:"who,omitempty"`
	// InKeyring: the tokens are in the OS keyring, not in the file.
	InKeyring bool `json:"keyring,omitempty"`
	// Storage is where the login was asked to be kept: a keyring-only
	// login is never moved to the file.
	Storage Storage `json:"storage,omitempty"`
	// IDTokenKept: the last refresh brought no ID token, so IDToken is
	// the one from before and Expiry its expiry.
	IDTokenKept bool `json:"id_token_kept,omitempty"`
}

// Bearer is the credential sent to the server: the ID token, whose
// audience is the teammemd client, else (from a provider that never gave
// one) the access token.
func (r Record) Bearer() string { return cmp.Or(r.IDToken, r.AccessToken) }

// Discover reads the server's discovery document.
func Discover(ctx context.Context, client *http.Client, server string) (api.Discovery, error) {
	var d api.Discovery
	u := strings.TrimRight(server, "/") + api.DiscoveryPath
	if err := getJSON(ctx, client, u, &d); err != nil {
		return d, fmt.Errorf("read the server's discovery document: %w", err)
	}
	return d, nil
}

// Provider merges the server's device login with cfg's, and fills in the
// endpoints the server left out from the issuer's own discovery document.
func Provider(ctx context.Context, client *http.Client, server string, d api.Discovery, cfg Config) (api.Login, error) {
	var l api.Login
	if d.Login != nil {
		l = *d.Login
	}
	if cfg.Issuer != "" && cfg.Issuer != l.Issuer {
		l = api.Login{Issuer: cfg.Issuer}
	}
	l.ClientID = cmp.Or(cfg.ClientID, l.ClientID)
	if len(cfg.Scopes) > 0 {
		l.Scopes = cfg.Scopes
	}
	if l.Issuer == "" || l.ClientID == "" {
		return l, fmt.Errorf("%s offers no device login (it accepts: %s) and the config's [login] names no issuer and client_id: "+
			"ask the server's admin for a token", server, strings.Join(d.AuthModes, ", "))
	}
	if l.DeviceAuthorizationEndpoint == "" || l.TokenEndpoint == "" {
		if err := fillEndpoints(ctx, client, &l); err != nil {
			return l, err
		}
	}
	return l, nil
}

// fillEndpoints reads the endpoints from the issuer's discovery document.
func fillEndpoints(ctx context.Context, client *http.Client, l *api.Login) error {
	var doc struct {
		Device     string `json:"device_authorization_endpoint"`
		Token      string `json:"token_endpoint"`
		Revocation string `json:"revocation_endpoint"`
	}
	u := strings.TrimRight(l.Issuer, "/") + "/.well-known/openid-configuration"
	if err := getJSON(ctx, client, u, &doc); err != nil {
		return fmt.Errorf("read the identity provider's discovery document: %w", err)
	}
	if doc.Device == "" || doc.Token == "" {
		return fmt.Errorf("identity provider %s offers no device authorization endpoint", l.Issuer)
	}
	l.DeviceAuthorizationEndpoint, l.TokenEndpoint = doc.Device, doc.Token
	l.RevocationEndpoint = cmp.Or(l.RevocationEndpoint, doc.Revocation)
	return nil
}

// oauthConfig is the public client of l.
func oauthConfig(l api.Login) *oauth2.Config {
	return &oauth2.Config{ClientID: l.ClientID, Scopes: l.Scopes, Endpoint: oauth2.Endpoint{
		DeviceAuthURL: l.DeviceAuthorizationEndpoint, TokenURL: l.TokenEndpoint, AuthStyle: oauth2.AuthStyleInParams,
	}}
}

// Device runs the device authorization grant: it shows the URL and code on
// out, waits for the person to approve, and returns the login.
func Device(ctx context.Context, client *http.Client, server string, l api.Login, out io.Writer, now func() time.Time) (Record, error) {
	ctx = context.WithValue(ctx, oauth2.HTTPClient, client)
	oc := oauthConfig(l)
	da, err := oc.DeviceAuth(ctx)
	if err != nil {
		return Record{}, fmt.Errorf("start device login at %s: %w", l.DeviceAuthorizationEndpoint, err)
	}
	fmt.Fprintf(out, "To log in to %s, open\n\n    %s\n\nand enter the code %s\n", server, da.VerificationURI, da.UserCode)
	if da.VerificationURIComplete != "" {
		fmt.Fprintf(out, "(or open %s)\n", da.VerificationURIComplete)
	}
	fmt.Fprintln(out, "Waiting for you to approve...")
	tok, err := oc.DeviceAccessToken(ctx, da)
	if err != nil {
		return Record{}, explainDeviceError(err)
	}
	rec := Record{Server: server, Issuer: l.Issuer, ClientID: l.ClientID, TokenEndpoint: l.TokenEndpoint,
		RevocationEndpoint: l.RevocationEndpoint}
	rec.update(tok, now())
	return rec, nil
}

// explainDeviceError says what a failed device login means.
func explainDeviceError(err error) error {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		switch re.ErrorCode {
		case "access_denied":
			return errors.New("the login was denied at the identity provider")
		case "expired_token":
			return errors.New("the code expired before it was approved: run teammemd login again")
		}
	}
	return fmt.Errorf("device login: %w", err)
}

// update takes the tokens of tok, obtained at now: the expiry is the
// earlier of the token's expires_in and the ID token's exp, and a refresh
// answer without a new refresh token keeps the old one.
//
// A refresh answer without an ID token (OpenID Connect makes it optional)
// keeps the ID token the login has. The server verifies ID tokens, JWTs
// for the teammemd client; the access token is for the provider's own
// APIs, often opaque, and the server would refuse it for ever. So the
// login goes on sending the kept ID token, and expires when it does: then
// the user has to log in again.
func (r *Record) update(tok *oauth2.Token, now time.Time) {
	id, _ := tok.Extra("id_token").(string)
	r.IDTokenKept = id == "" && r.IDToken != ""
	r.AccessToken = tok.AccessToken
	r.RefreshToken = cmp.Or(tok.RefreshToken, r.RefreshToken)
	if r.IDTokenKept {
		if exp := unverifiedClaims(r.IDToken).Exp; exp > 0 {
			r.Expiry = time.Unix(exp, 0)
		}
		return
	}
	r.IDToken = id
	r.Expiry = time.Time{}
	if tok.ExpiresIn > 0 {
		r.Expiry = now.Add(time.Duration(tok.ExpiresIn) * time.Second)
	}
	claims := unverifiedClaims(r.IDToken)
	if claims.Exp > 0 {
		if exp := time.Unix(claims.Exp, 0); r.Expiry.IsZero() || exp.Before(r.Expiry) {
			r.Expiry = exp
		}
	}
	r.Who = cmp.Or(claims.who(), r.Who)
}

// UnvouchedEmail is the email the ID token names without the provider
// vouching for it (email_verified): the server counts no such email, so
// the login is known by its subject id and no email grant matches it.
func (r Record) UnvouchedEmail() string {
	if c := unverifiedClaims(r.IDToken); !api.EmailVerified(c.EmailVerified) {
		return c.Email
	}
	return ""
}

// idClaims are the ID token claims the client reads: only to know when to
// refresh and whom to name. The server verifies the token.
type idClaims struct {
	Exp           int64  `json:"exp"`
	Email         string `json:"email"`
	EmailVerified any    `json:"email_verified"`
	Sub           string `json:"sub"`
}

// who names the login as the server knows it: by the email the provider
// vouches for, else by its subject id.
func (c idClaims) who() string {
	if api.EmailVerified(c.EmailVerified) {
		return cmp.Or(c.Email, c.Sub)
	}
	return c.Sub
}

func unverifiedClaims(jwt string) idClaims {
	var c idClaims
	parts := strings.Split(jwt, ".")
	if len(parts) != 3 {
		return c
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err == nil {
		_ = json.Unmarshal(payload, &c)
	}
	return c
}

// maxBody bounds a discovery document.
const maxBody = 1 << 20

func getJSON(ctx context.Context, client *http.Client, u string, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return fmt.Errorf("read %s: %w", u, err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", u, resp.Status)
	}
	if err := json.Unmarshal(body, out); err != nil {
		return fmt.Errorf("decode %s: %w", u, err)
	}
	return nil
}
