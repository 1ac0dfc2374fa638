package webui

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/teammemd/teammemd/server/auth"
	"github.com/teammemd/teammemd/server/store"
)

// Cookie names: with Secure, the __Host- prefix binds the cookie to this
// host and path /.
const (
	cookieName       = "teammemd_ui"
	secureCookieName = "__Host-teammemd_ui"
)

// loginTTL bounds a sign-in with the provider that is under way.
const loginTTL = 10 * time.Minute

// csrfField is the name of every form's anti-forgery token.
const csrfField = "csrf"

// session is what the store keeps of a browser's session: who signed in,
// how, and with what grants, the session's anti-forgery token, or a
// sign-in with the provider under way.
type session struct {
	Subject string `json:"subject,omitempty"`
	Mode    string `json:"mode,omitempty"`
	// Grants are those of the sign-in; loadSession works them out again
	// for every request from TokenHash or Identity.
	Grants []store.Grant `json:"grants,omitempty"`
	// TokenHash is the SHA-256 of the API token signed in with: the session
	// has the token's grants, and ends when the token is revoked.
	TokenHash string `json:"tokenHash,omitempty"`
	// Identity is what the OIDC provider or claude.ai vouched for at
	// sign-in, which the grant rules in force match.
	Identity *auth.Identity `json:"identity,omitempty"`
	// AccountID is the GitHub user id a GitHub token signed in as: the
	// session lasts while its subject is bound to it.
	AccountID string `json:"accountId,omitempty"`
	CSRF      string `json:"csrf"`
	// Login is a sign-in with the provider under way.
	Login *pendingLogin `json:"login,omitempty"`

	idHash  string
	expires time.Time
	// tokenID is the ID of the token signed in with, which current looks
	// up on every page: the credential a write of the session records.
	tokenID string
}

// pendingLogin is what the callback of a sign-in with the provider checks.
type pendingLogin struct {
	State    string `json:"state"`
	Nonce    string `json:"nonce"`
	Verifier string `json:"verifier"`
}

// principal is the signed-in caller, as the API's checks take it.
func (s *session) principal() auth.Principal {
	return auth.Principal{Subject: s.Subject, Mode: s.Mode, TokenID: s.tokenID, Grants: s.Grants}
}

// randomToken returns 32 random bytes, base64url.
func randomToken() (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("random: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b[:]), nil
}

func hashID(id string) string {
	sum := sha256.Sum256([]byte(id))
	return hex.EncodeToString(sum[:])
}

func (u *UI) cookieName(r *http.Request) string {
	if u.secureFor(r) {
		return secureCookieName
	}
	return cookieName
}

// secureFor reports whether the browser reached the view over HTTPS for
// r, as the base URL the server answers r with says: the server serves
// TLS, [server.ui] url is https, or a trusted proxy that ended TLS says
// so. Its cookies are then Secure.
func (u *UI) secureFor(r *http.Request) bool { return secureURL(u.baseURL(r)) }

// startSession stores s under a new random id for ttl and gives the
// browser the id in a cookie.
func (u *UI) startSession(w http.ResponseWriter, r *http.Request, s *session, ttl time.Duration) error {
	ctx := r.Context()
	id, err := randomToken()
	if err != nil {
		return err
	}
	if s.CSRF, err = randomToken(); err != nil {
		return err
	}
	now := u.now()
	s.idHash, s.expires = hashID(id), now.Add(ttl)
	data, err := json.Marshal(s)
	if err != nil {
		return fmt.Errorf("encode session: %w", err)
	}
	if err := u.store.PutWebSession(ctx, store.WebSession{IDHash: s.idHash, Data: data, Created: now, Expires: s.expires}); err != nil {
		return err
	}
	http.SetCookie(w, u.cookie(r, id, s.expires))
	return nil
}

func (u *UI) cookie(r *http.Request, value string, expires time.Time) *http.Cookie {
	secure := u.secureFor(r)
	c := &http.Cookie{Name: u.cookieName(r), Value: value, Path: Prefix, HttpOnly: true, Secure: secure,
		SameSite: http.SameSiteLaxMode, Expires: expires}
	if secure {
		c.Path = "/"
	}
	if expires.IsZero() {
		c.MaxAge = -1
	}
	return c
}

// endSession drops s from the store and the browser.
func (u *UI) endSession(w http.ResponseWriter, r *http.Request, s *session) error {
	http.SetCookie(w, u.cookie(r, "", time.Time{}))
	if s == nil {
		return nil
	}
	return u.store.DeleteWebSession(r.Context(), s.idHash)
}

// loadSession returns r's session with the grants the config in force
// gives it; nil when it has none, it expired or ended, or the session
// ended now (see current).
func (u *UI) loadSession(r *http.Request) (*session, error) {
	c, err := r.Cookie(u.cookieName(r))
	if err != nil || c.Value == "" {
		return nil, nil
	}
	ws, err := u.store.WebSession(r.Context(), hashID(c.Value), u.now())
	if errors.Is(err, store.ErrWebSessionNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read session: %w", err)
	}
	s := &session{idHash: ws.IDHash, expires: ws.Expires}
	if err := json.Unmarshal(ws.Data, s); err != nil {
		return nil, nil // a record this view did not write is no session
	}
	if s.Subject == "" {
		return s, nil // a sign-in under way
	}
	ok, err := u.current(r.Context(), s)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, u.store.DeleteWebSession(r.Context(), s.idHash)
	}
	return s, nil
}

// current gives the signed-in session s the grants it has under the
// config in force, as the API would give its credential: a token's grants
// as stored, the grant rules' for what the provider vouched for. It
// reports false when s is to end: the server no longer accepts its way of
// signing in, its token was revoked, or it keeps no identity to match the
// rules against (a session stored before sessions kept one), or its
// GitHub login is no longer bound to the account it signed in as.
func (u *UI) current(ctx context.Context, s *session) (bool, error) {
	if !u.auth.ModeOn(s.Mode) {
		return false, nil
	}
	switch s.Mode {
	case auth.ModeToken:
		tok, err := u.store.TokenByHash(ctx, s.TokenHash)
		if errors.Is(err, store.ErrTokenNotFound) {
			return false, nil
		}
		if err != nil {
			return false, fmt.Errorf("check session token: %w", err)
		}
		s.Grants, s.tokenID = tok.Grants, tok.ID
	case auth.ModeOIDC, auth.ModeClaude:
		if s.Identity == nil || s.Identity.Mode != s.Mode {
			return false, nil
		}
		s.Grants = u.auth.GrantsFor(*s.Identity)
	case auth.ModeGitHub:
		return u.stillBound(ctx, s)
	}
	return true, nil
}

// stillBound reports whether the subject of s, a GitHub session, is bound
// to the account it signed in as: after an admin released the login and
// another account signed in as it, the first account's session ends.
func (u *UI) stillBound(ctx context.Context, s *session) (bool, error) {
	if s.AccountID == "" {
		return false, nil
	}
	b, err := u.store.IdentityBinding(ctx, s.Subject)
	if errors.Is(err, store.ErrBindingNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("check session binding: %w", err)
	}
	return b.AccountID == s.AccountID, nil
}

// sessionHandler is a page of a signed-in browser.
type sessionHandler func(w http.ResponseWriter, r *http.Request, s *session)

// signedIn lets through a browser signed in, sending any other to the
// sign-in page; a POST must carry the session's anti-forgery token.
func (u *UI) signedIn(next sessionHandler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s, err := u.loadSession(r)
		if err != nil {
			u.fail(w, r, nil, err)
			return
		}
		if s == nil || s.Subject == "" {
			if r.Method != http.MethodGet {
				u.fail(w, r, nil, &pageError{status: http.StatusForbidden, msg: "you are not signed in, or your session ended: sign in again"})
				return
			}
			http.Redirect(w, r, Prefix+"/signin?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
			return
		}
		if r.Method == http.MethodPost && !u.validCSRF(r, s.CSRF) {
			u.fail(w, r, s, errForged)
			return
		}
		if err := u.backend.Limit(r, s.Subject, s.Mode); err != nil {
			u.fail(w, r, s, err)
			return
		}
		next(w, r, s)
	}
}

// errForged refuses a form without the page's anti-forgery token.
var errForged = &pageError{status: http.StatusForbidden,
	msg: "this form did not come from this page (its anti-forgery token is missing or stale): reload the page and try again"}

// validCSRF reports whether r's form carries want, and comes from this
// origin when the browser says where it came from.
func (u *UI) validCSRF(r *http.Request, want string) bool {
	if want == "" || !u.sameOrigin(r) {
		return false
	}
	got := r.PostFormValue(csrfField)
	return subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}

// sameOrigin reports whether r's Origin, when sent, is this view's.
func (u *UI) sameOrigin(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	o, err := url.Parse(origin)
	return err == nil && o.Host == u.host(r)
}

// safeNext is where to go after signing in: a page of the view, else its
// start.
func safeNext(next string) string {
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.Path == "" || u.Path[0] != '/' ||
		len(next) > 1 && (next[1] == '/' || next[1] == '\\') || !pathUnder(u.Path) {
		return Prefix + "/"
	}
	return u.RequestURI()
}

func pathUnder(p string) bool {
	return p == Prefix || len(p) > len(Prefix) && p[:len(Prefix)+1] == Prefix+"/"
}
