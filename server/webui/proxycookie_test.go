package webui_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/server"
	"github.com/teammemd/teammemd/server/servertest"
)

// cookieNamed returns the cookie name that resp sets, or nil.
func cookieNamed(resp *http.Response, name string) *http.Cookie {
	for _, c := range resp.Cookies() {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// Behind a trusted proxy that ended TLS, the view's cookies are Secure
// (the session's with the __Host- prefix) without [server.ui] url set; the
// same header from a peer the server does not trust changes nothing.
func TestCookiesSecureBehindAProxy(t *testing.T) {
	for _, trusted := range []bool{true, false} {
		var opts []servertest.Option
		if trusted {
			opts = append(opts, servertest.WithConfig(func(c *server.Config) { c.TrustedProxies = []string{"127.0.0.1", "::1"} }))
		}
		srv := servertest.Start(t, opts...)
		c := &http.Client{Transport: forwardedHTTPS{}, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		resp, err := c.Get(srv.URL + "/ui/signin")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		pre := cookieNamed(resp, "teammemd_ui_signin")
		if pre == nil || pre.Secure != trusted {
			t.Fatalf("trusted proxy %v: sign-in cookie %+v, want Secure %v", trusted, pre, trusted)
		}
		body := url.Values{"csrf": {pre.Value}, "token": {srv.CreateToken(t, "alice")}}
		req, err := http.NewRequest(http.MethodPost, srv.URL+"/ui/signin/token", strings.NewReader(body.Encode()))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.AddCookie(pre)
		resp, err = c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		name := "teammemd_ui"
		if trusted {
			name = "__Host-teammemd_ui"
		}
		session := cookieNamed(resp, name)
		if session == nil || session.Secure != trusted || session.Value == "" {
			t.Fatalf("trusted proxy %v: sign-in answered %d with cookies %v, want a session cookie %s with Secure %v",
				trusted, resp.StatusCode, resp.Cookies(), name, trusted)
		}
		req, err = http.NewRequest(http.MethodGet, srv.URL+"/ui/", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.AddCookie(session)
		resp, err = c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("trusted proxy %v: the view with the session cookie = %d, want 200", trusted, resp.StatusCode)
		}
	}
}
