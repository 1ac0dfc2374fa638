package webui_test

import (
	"bytes"
	"context"
	"encoding/json"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server"
	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/servertest"
	"github.com/teammemd/teammemd/server/store"
)

// admin is the subject the test servers make an admin of the view.
const admin = "ops-admin"

// startServer runs the real server with its web view on a real SQLite
// store, with admin as the view's admin.
func startServer(t *testing.T, opts ...servertest.Option) *servertest.Server {
	t.Helper()
	opts = append([]servertest.Option{servertest.WithConfig(func(c *server.Config) { c.UI.Admins = []string{admin} })}, opts...)
	return servertest.Start(t, opts...)
}

// put writes entries to repo through the API with token.
func put(t *testing.T, srv *servertest.Server, token, repo string, entries map[string]string) {
	t.Helper()
	body, err := json.Marshal(map[string]any{"entries": entries})
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPut, srv.URL+api.Path+"?repo="+url.QueryEscape(repo), bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("PUT %s: %v", repo, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("PUT %s = %d %s, want 200", repo, resp.StatusCode, b)
	}
}

// entries reads repo's entries through the API.
func entries(t *testing.T, srv *servertest.Server, repo string) map[string]string {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, srv.URL+api.Path+"?repo="+url.QueryEscape(repo), nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+srv.Token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", repo, err)
	}
	defer resp.Body.Close()
	var got struct {
		Content struct {
			Entries map[string]string `json:"entries"`
		} `json:"content"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
		t.Fatalf("GET %s: decode: %v", repo, err)
	}
	return got.Content.Entries
}

// browser is an HTTP client with a cookie jar, as a browser without
// JavaScript is.
type browser struct {
	t    *testing.T
	base string
	c    *http.Client
}

func newBrowser(t *testing.T, base string) *browser {
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &browser{t: t, base: base, c: &http.Client{Jar: jar}}
}

// page is an answer as the test reads it.
type page struct {
	status int
	header http.Header
	body   string
	url    string
}

func (b *browser) do(req *http.Request) page {
	b.t.Helper()
	resp, err := b.c.Do(req)
	if err != nil {
		b.t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		b.t.Fatalf("%s %s: read: %v", req.Method, req.URL, err)
	}
	return page{status: resp.StatusCode, header: resp.Header, body: string(body), url: resp.Request.URL.String()}
}

func (b *browser) get(path string) page {
	b.t.Helper()
	req, err := http.NewRequest(http.MethodGet, b.base+path, nil)
	if err != nil {
		b.t.Fatal(err)
	}
	return b.do(req)
}

func (b *browser) post(path string, form url.Values) page {
	b.t.Helper()
	req, err := http.NewRequest(http.MethodPost, b.base+path, strings.NewReader(form.Encode()))
	if err != nil {
		b.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return b.do(req)
}

var csrfInput = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// csrf is the anti-forgery token of the first form of p.
func (p page) csrf(t *testing.T) string {
	t.Helper()
	m := csrfInput.FindStringSubmatch(p.body)
	if m == nil {
		t.Fatalf("page %s has no form with an anti-forgery token:\n%s", p.url, p.body)
	}
	return html.UnescapeString(m[1])
}

// signIn signs b in with token through the sign-in form.
func (b *browser) signIn(token string) page {
	b.t.Helper()
	form := b.get("/ui/signin")
	return b.post("/ui/signin/token", url.Values{"csrf": {form.csrf(b.t)}, "token": {token}})
}

// signedIn returns a browser signed in with a new token of subject with
// grants.
func signedIn(t *testing.T, srv *servertest.Server, subject string, grants ...store.Grant) *browser {
	t.Helper()
	b := newBrowser(t, srv.URL)
	if p := b.signIn(srv.CreateToken(t, subject, grants...)); p.status != http.StatusOK || !strings.Contains(p.body, subject) {
		t.Fatalf("sign in as %s = %d at %s, want 200 with the subject:\n%s", subject, p.status, p.url, p.body)
	}
	return b
}

func grant(pattern string, level store.Level) store.Grant {
	return store.Grant{Pattern: pattern, Level: level}
}

// withStaleAfter sets [server.ui] stale_after; 0 means a nanosecond, so
// every note is stale.
func withStaleAfter(d time.Duration) servertest.Option {
	return servertest.WithConfig(func(c *server.Config) { c.UI.StaleAfter = max(d, time.Nanosecond) })
}

// seed writes entries to repo in the store directly, for a server that
// takes no API token.
func seed(t *testing.T, srv *servertest.Server, repo string, entries map[string]string) {
	t.Helper()
	if _, err := srv.Store.Apply(context.Background(), store.Write{Repo: repo, Entries: entries, Subject: "seed", Time: time.Now()}); err != nil {
		t.Fatalf("Apply(%s) = %v", repo, err)
	}
}
