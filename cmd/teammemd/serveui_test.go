package main

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"
)

// uiSettingCases prove the [server.ui] settings reach the running web view.
func uiSettingCases() []settingCase {
	return []settingCase{
		{keys: []string{"ui.enabled"}, toml: "[server.ui]\nenabled = false\n", probe: probeUIOff},
		{keys: []string{"ui.stale_after", "ui.session_ttl", "ui.admins", "ui.url"},
			toml:  "[server.ui]\nstale_after = \"1ns\"\nsession_ttl = \"2h\"\nadmins = [\"alice\"]\nurl = \"http://127.0.0.1:1\"\n",
			probe: probeUISettings},
	}
}

func probeUIOff(t *testing.T, s *settingServer) {
	if a := s.call(t, http.MethodGet, "/ui/", "", nil, nil); a.status != http.StatusNotFound {
		t.Errorf("GET /ui/ with the view off = %d, want 404", a.status)
	}
}

var uiCSRF = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// probeUISettings signs alice in with her token and finds her an admin,
// her session as long as session_ttl, every note stale, and the view's
// address url's: a form from that origin is taken, one from the address
// the server listens at is not.
func probeUISettings(t *testing.T, s *settingServer) {
	s.mustPut(t, map[string]string{"a.md": "a"})
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Timeout: 30 * time.Second}
	get := func(path string) string {
		resp, err := c.Get(s.base + path)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	post := func(path, origin string, form url.Values) *http.Response {
		req, _ := http.NewRequest(http.MethodPost, s.base+path, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", origin)
		resp, err := c.Do(req)
		if err != nil {
			t.Fatalf("POST %s: %v", path, err)
		}
		resp.Body.Close()
		return resp
	}
	csrf := func(page string) string {
		m := uiCSRF.FindStringSubmatch(page)
		if m == nil {
			t.Fatalf("no form in %s", page)
		}
		return m[1]
	}
	signIn := url.Values{"csrf": {csrf(get("/ui/signin"))}, "token": {s.alice}}
	if resp := post("/ui/signin/token", s.base, signIn); resp.StatusCode != http.StatusForbidden {
		t.Errorf("sign-in form from the listen address = %d, want 403 (url names another)", resp.StatusCode)
	}
	signIn.Set("csrf", csrf(get("/ui/signin")))
	if resp := post("/ui/signin/token", "http://127.0.0.1:1", signIn); resp.StatusCode != http.StatusOK {
		t.Fatalf("sign-in form from url's origin = %d, want 200", resp.StatusCode)
	}
	u, _ := url.Parse(s.base + "/ui/")
	if cookies := jar.Cookies(u); len(cookies) == 0 {
		t.Fatal("no session cookie after signing in")
	}
	if page := get("/ui/"); !strings.Contains(page, `href="/ui/audit"`) {
		t.Errorf("alice, an admin, is not offered the audit:\n%s", page)
	}
	if page := get("/ui/repo?repo=" + url.QueryEscape(settingsRepo)); !strings.Contains(page, "stale-flag") {
		t.Errorf("a note older than stale_after is not flagged:\n%s", page)
	}
	// The session cookie of a sign-in lasts session_ttl.
	resp, err := c.Get(s.base + "/ui/signin")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	form := url.Values{"token": {s.bob}}
	for _, ck := range resp.Cookies() {
		if ck.Name == "teammemd_ui_signin" {
			form.Set("csrf", ck.Value)
		}
	}
	req, _ := http.NewRequest(http.MethodPost, s.base+"/ui/signin/token", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", "http://127.0.0.1:1")
	req.AddCookie(&http.Cookie{Name: "teammemd_ui_signin", Value: form.Get("csrf")})
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	r, err := noFollow.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	for _, ck := range r.Cookies() {
		if ck.Name == "teammemd_ui" {
			if left := time.Until(ck.Expires); left < 119*time.Minute || left > 121*time.Minute {
				t.Errorf("session cookie expires in %s, want session_ttl 2h", left)
			}
			return
		}
	}
	t.Errorf("sign-in answer %d sets no session cookie", r.StatusCode)
}
