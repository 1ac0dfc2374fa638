package webui

import (
	"crypto/subtle"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/auth"
)

// preCookie holds the anti-forgery token of the sign-in forms, which come
// before any session: the form must carry the cookie's value.
const preCookie = "teammemd_ui_signin"

// signInPage is what the sign-in page shows.
type signInPage struct {
	OIDC, Tokens bool
	Next, Error  string
}

// serveSignIn shows the ways to sign in this server offers.
func (u *UI) serveSignIn(w http.ResponseWriter, r *http.Request) {
	u.showSignIn(w, r, http.StatusOK, "")
}

func (u *UI) showSignIn(w http.ResponseWriter, r *http.Request, status int, msg string) {
	token, err := randomToken()
	if err != nil {
		u.fail(w, r, nil, err)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: preCookie, Value: token, Path: Prefix + "/signin", HttpOnly: true,
		Secure: u.secureFor(r), SameSite: http.SameSiteStrictMode, MaxAge: int(loginTTL / time.Second)})
	page := signInPage{OIDC: u.oidc != nil, Tokens: u.auth.TokensEnabled(), Next: safeNext(r.FormValue("next")), Error: msg}
	u.render(w, r, status, "signin", &view{CSRF: token, Title: "Sign in", Page: page})
}

// validPre reports whether a sign-in form carries its cookie's token.
func (u *UI) validPre(r *http.Request) bool {
	c, err := r.Cookie(preCookie)
	if err != nil || c.Value == "" || !u.sameOrigin(r) {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(r.PostFormValue(csrfField)), []byte(c.Value)) == 1
}

// maxPastedToken bounds a pasted credential.
const maxPastedToken = 16 << 10

// serveTokenSignIn checks a pasted API token as the API checks a bearer
// one and starts a session for whom it names.
func (u *UI) serveTokenSignIn(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxPastedToken+4096)
	if !u.validPre(r) {
		u.fail(w, r, nil, errForged)
		return
	}
	if !u.auth.TokensEnabled() {
		u.showSignIn(w, r, http.StatusForbidden, "this server does not accept API tokens")
		return
	}
	token := strings.TrimSpace(r.PostFormValue("token"))
	if token == "" || len(token) > maxPastedToken {
		u.showSignIn(w, r, http.StatusBadRequest, "paste an API token (tmd_…)")
		return
	}
	p, err := u.backend.SignIn(r, token)
	if err != nil {
		u.refuseSignIn(w, r, err)
		return
	}
	s := &session{Subject: p.Subject, Mode: p.Mode, Grants: p.Grants, Identity: p.Identity, AccountID: p.AccountID}
	if p.Mode == auth.ModeToken {
		s.TokenHash = auth.HashToken(token)
	}
	old, err := u.loadSession(r)
	if err != nil {
		u.fail(w, r, nil, err)
		return
	}
	u.finishSignIn(w, r, old, s, r.PostFormValue("next"))
}

// refuseSignIn shows why a credential was refused.
func (u *UI) refuseSignIn(w http.ResponseWriter, r *http.Request, err error) {
	var apiErr *api.Error
	if errors.As(err, &apiErr) {
		u.showSignIn(w, r, apiErr.Status, apiErr.Message)
		return
	}
	u.fail(w, r, nil, err)
}

// finishSignIn ends old, a session that came before (a sign-in under way),
// and starts s under a new id, so that no id known before the sign-in
// ever becomes a signed-in one.
func (u *UI) finishSignIn(w http.ResponseWriter, r *http.Request, old, s *session, next string) {
	if old != nil {
		if err := u.store.DeleteWebSession(r.Context(), old.idHash); err != nil {
			u.fail(w, r, nil, err)
			return
		}
	}
	if err := u.startSession(w, r, s, u.cfg.SessionTTL); err != nil {
		u.fail(w, r, nil, err)
		return
	}
	u.log.InfoContext(r.Context(), "web sign-in", "subject", s.Subject, "mode", s.Mode)
	http.Redirect(w, r, safeNext(next), http.StatusSeeOther)
}

// serveSignOut ends the session.
func (u *UI) serveSignOut(w http.ResponseWriter, r *http.Request, s *session) {
	if err := u.endSession(w, r, s); err != nil {
		u.fail(w, r, nil, err)
		return
	}
	http.Redirect(w, r, Prefix+"/signin", http.StatusSeeOther)
}
