package authtest

import (
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/url"
	"time"
)

// authCode is an authorization code the authorization endpoint issued and
// the token endpoint redeems once.
type authCode struct {
	user                      User
	clientID, redirect, nonce string
	challenge                 string // the PKCE S256 code challenge
	expires                   time.Time
}

// SignInAs makes the authorization endpoint sign u in at once, as a person
// already signed in at the provider who consents would be; nil makes it
// answer access_denied.
func (p *IdP) SignInAs(u *User) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.signedIn = u
}

// authorize is the authorization endpoint of the code flow: it requires
// the provider's client, response_type=code, a redirect URI, a state, a
// nonce and a PKCE S256 challenge, and redirects back with a code for the
// user SignInAs named.
func (p *IdP) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	redirect, err := url.Parse(q.Get("redirect_uri"))
	if err != nil || redirect.Host == "" || q.Get("client_id") != p.ClientID {
		http.Error(w, "unknown client or redirect_uri", http.StatusBadRequest)
		return
	}
	back := redirect.Query()
	back.Set("state", q.Get("state"))
	p.mu.Lock()
	user := p.signedIn
	p.mu.Unlock()
	switch {
	case q.Get("response_type") != "code" || q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" ||
		q.Get("nonce") == "" || q.Get("state") == "":
		back.Set("error", "invalid_request")
	case user == nil:
		back.Set("error", "access_denied")
	default:
		code := randomHex(16)
		p.mu.Lock()
		p.codes[code] = authCode{user: *user, clientID: p.ClientID, redirect: q.Get("redirect_uri"), nonce: q.Get("nonce"),
			challenge: q.Get("code_challenge"), expires: p.clock.Now().Add(time.Minute)}
		p.mu.Unlock()
		back.Set("code", code)
	}
	redirect.RawQuery = back.Encode()
	http.Redirect(w, r, redirect.String(), http.StatusFound)
}

// redeemCode answers an authorization code grant: the code once, for the
// redirect URI it was issued for, with the verifier of its challenge.
func (p *IdP) redeemCode(r *http.Request) (User, string, string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	c, ok := p.codes[r.PostFormValue("code")]
	delete(p.codes, r.PostFormValue("code"))
	sum := sha256.Sum256([]byte(r.PostFormValue("code_verifier")))
	switch {
	case !ok || p.clock.Now().After(c.expires) || c.redirect != r.PostFormValue("redirect_uri"):
		return User{}, "", "invalid_grant"
	case base64.RawURLEncoding.EncodeToString(sum[:]) != c.challenge:
		return User{}, "", "invalid_grant"
	}
	return c.user, c.nonce, ""
}
