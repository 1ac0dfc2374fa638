package webui_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/teammemd/teammemd/server/auth/authtest"
	"github.com/teammemd/teammemd/server/servertest"
	"github.com/teammemd/teammemd/server/store"
)

// Browser tests drive a real headless Chromium.
const (
	// envBrowser opts in; CI sets it and installs Chromium, and with it set
	// a missing Chromium fails the tests rather than skipping them.
	envBrowser = "TEAMMEMD_TEST_BROWSER"
	// envScreenshots names a directory to keep the pages' screenshots in;
	// without it they go to the test's temporary directory.
	envScreenshots = "TEAMMEMD_TEST_SCREENSHOTS"
)

// chrome is a headless Chromium tab for one test, and the response headers
// of the documents it loaded, by URL.
type chrome struct {
	t       *testing.T
	ctx     context.Context
	shots   string
	mu      sync.Mutex
	headers map[string]network.Headers
}

func startChrome(t *testing.T) *chrome {
	t.Helper()
	if os.Getenv(envBrowser) != "1" {
		t.Skip("set " + envBrowser + "=1 to run the browser tests with a headless Chromium (apt-get install chromium)")
	}
	path, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatalf("%s=1 but chromium is not on PATH: %v", envBrowser, err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox,
		chromedp.Flag("disable-dev-shm-usage", true), chromedp.WindowSize(1100, 760))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	bctx, cancelTab := chromedp.NewContext(actx)
	t.Cleanup(func() { cancelTab(); cancelAlloc() })
	c := &chrome{t: t, shots: os.Getenv(envScreenshots), headers: map[string]network.Headers{}}
	if c.shots == "" {
		c.shots = t.TempDir()
	}
	// Listen starts the browser, so the test's timeout below bounds the
	// actions and not the browser's life.
	err = chromedp.Listen(bctx, func(ev any) {
		if r, ok := ev.(*network.EventResponseReceived); ok && r.Type == network.ResourceTypeDocument {
			c.mu.Lock()
			c.headers[r.Response.URL] = r.Response.Headers
			c.mu.Unlock()
		}
	})
	if err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	ctx, cancelTimeout := context.WithTimeout(bctx, 2*time.Minute)
	t.Cleanup(cancelTimeout)
	c.ctx = ctx
	return c
}

// run runs steps in the tab, failing the test on an error.
func (c *chrome) run(what string, steps ...chromedp.Action[chromedp.Void]) {
	c.t.Helper()
	if err := chromedp.Do(c.ctx, steps...); err != nil {
		c.t.Fatalf("%s: %v", what, err)
	}
}

// text returns the text of the first element the CSS selector sel matches.
func (c *chrome) text(sel string) string {
	c.t.Helper()
	s, err := chromedp.Run(c.ctx, chromedp.Text(chromedp.CSS(sel)))
	if err != nil {
		c.t.Fatalf("read %s: %v", sel, err)
	}
	return s
}

// eval evaluates a JavaScript expression in the page, as DevTools does:
// the page's Content-Security-Policy does not apply to it.
func eval[T any](c *chrome, expr string) T {
	c.t.Helper()
	v, err := chromedp.Run(c.ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		c.t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// shot keeps a screenshot of the page as name.png.
func (c *chrome) shot(name string) {
	c.t.Helper()
	png, err := chromedp.Run(c.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		c.t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.WriteFile(filepath.Join(c.shots, name+".png"), png, 0o644); err != nil {
		c.t.Fatal(err)
	}
}

// header is a response header of the document at url.
func (c *chrome) header(url, name string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, _ := c.headers[url][name].(string)
	return v
}

// signInByToken signs the tab in with token through the sign-in form.
func (c *chrome) signInByToken(base, token string) {
	c.t.Helper()
	c.run("open the sign-in page", chromedp.Navigate(base+"/ui/"), chromedp.WaitVisible(chromedp.CSS("#token")))
	c.run("type the token", chromedp.SendKeys(chromedp.CSS("#token"), token))
	c.run("submit the token", chromedp.Click(chromedp.CSS("#signin-token")))
	c.run("wait to be signed in", chromedp.WaitVisible(chromedp.CSS("#subject")))
}

// seedTeam writes the notes the browser tests read, as two teammates'
// machines would.
func seedTeam(t *testing.T, srv *servertest.Server) {
	alice := srv.CreateToken(t, "alice@laptop", grant("**", store.LevelWrite))
	bob := srv.CreateToken(t, "bob@ci-runner", grant("**", store.LevelWrite))
	put(t, srv, alice, "acme/app", map[string]string{
		"deploy.md": "---\nname: Deploy\ndescription: How we ship the app\ntype: project\n---\n# Deploy\n\n1. Run `make release`\n2. Watch the **canary** for ten minutes\n",
		"MEMORY.md": "# Team memory\n\n- [Deploy](deploy.md): how we ship\n- [Oncall](oncall.md): who to page\n",
		"oncall.md": "---\nname: Oncall\ndescription: Who to page and when\ntype: reference\n---\nPage the primary first; the secondary after 15 minutes.\n",
	})
	put(t, srv, bob, "acme/app", map[string]string{
		"deploy.md": "---\nname: Deploy\ndescription: How we ship the app\ntype: project\n---\n# Deploy\n\n1. Run `make release VERSION=x.y.z`\n2. Watch the **canary** for fifteen minutes\n3. Announce in #releases\n",
	})
	put(t, srv, srv.Token, "other/secret", map[string]string{"plans.md": "secret plans"})
}

// TestBrowserReadSearchDiffRestore signs in with a token, browses, searches,
// opens a diff and restores the older version, keeping a screenshot of each
// page.
func TestBrowserReadSearchDiffRestore(t *testing.T) {
	c := startChrome(t)
	srv := startServer(t)
	seedTeam(t, srv)
	token := srv.CreateToken(t, "carol@desktop", grant("acme/**", store.LevelWrite))

	c.run("open sign-in", chromedp.Navigate(srv.URL+"/ui/"), chromedp.WaitVisible(chromedp.CSS("#token")))
	c.shot("signin")
	c.signInByToken(srv.URL, token)
	if got := c.text("#repos"); !strings.Contains(got, "acme/app") || strings.Contains(got, "other/secret") {
		t.Errorf("repos = %q, want acme/app only", got)
	}
	c.run("open repo", chromedp.Click(chromedp.CSS(`#repos a[href^="/ui/repo"]`)), chromedp.WaitVisible(chromedp.CSS("#notes")))
	c.shot("repo")
	c.run("open note", chromedp.Click(chromedp.CSS(`#notes a[href*="deploy.md"]`)), chromedp.WaitVisible(chromedp.CSS("#note")))
	if got := c.text("#frontmatter"); !strings.Contains(got, "How we ship the app") {
		t.Errorf("frontmatter = %q, want the description", got)
	}
	if got := c.text("#note strong"); got != "canary" {
		t.Errorf("rendered bold = %q, want canary", got)
	}
	c.shot("note")

	c.run("search", chromedp.SendKeys(chromedp.CSS(`header input[name="q"]`), "page primary"),
		chromedp.Submit(chromedp.CSS(`header input[name="q"]`)), chromedp.WaitVisible(chromedp.CSS("#hits")))
	if got := c.text("#hits"); !strings.Contains(got, "oncall.md") || strings.Contains(got, "deploy.md") {
		t.Errorf("search hits = %q, want oncall.md only", got)
	}
	c.shot("search")

	c.run("open history", chromedp.Navigate(srv.URL+"/ui/note?repo=acme/app&key=deploy.md"),
		chromedp.Click(chromedp.CSS("#history-link")), chromedp.WaitVisible(chromedp.CSS("#history")))
	c.shot("history")
	c.run("open diff", chromedp.Click(chromedp.CSS(".diff-link")), chromedp.WaitVisible(chromedp.CSS("#diff")))
	if got := c.text("#diff .add"); !strings.Contains(got, "make release VERSION=x.y.z") {
		t.Errorf("first added line = %q, want the new release command", got)
	}
	c.shot("diff")
	c.run("restore", chromedp.Click(chromedp.CSS("#restore")), chromedp.WaitVisible(chromedp.CSS("#history")))
	if got := entries(t, srv, "acme/app")["deploy.md"]; !strings.Contains(got, "ten minutes") {
		t.Errorf("deploy.md after restore = %q, want version 1's content", got)
	}
	if got := c.text("#history tbody tr td.who"); got != "carol@desktop" {
		t.Errorf("newest revision by %q, want carol@desktop", got)
	}
	c.run("open loads", chromedp.Navigate(srv.URL+"/ui/loads?repo=acme/app"), chromedp.WaitVisible(chromedp.CSS("#index")))
	c.shot("loads")
}

// TestBrowserOIDCSignIn signs in through the provider's authorization
// code flow, redirects and all.
func TestBrowserOIDCSignIn(t *testing.T) {
	c := startChrome(t)
	srv, idp := oidcServer(t, true)
	seed(t, srv, "acme/app", map[string]string{"a.md": "# Hello from the team"})
	idp.SignInAs(&authtest.User{Sub: "u1", Email: "rosa@acme.com", EmailVerified: true})
	c.run("sign in with the provider",
		chromedp.Navigate(srv.URL+"/ui/note?repo=acme/app&key=a.md"),
		chromedp.Click(chromedp.CSS("#signin-oidc")),
		chromedp.WaitVisible(chromedp.CSS("#note")))
	if got := c.text("#subject"); got != "oidc:rosa@acme.com" {
		t.Errorf("signed in as %q, want oidc:rosa@acme.com", got)
	}
	c.run("sign out", chromedp.Click(chromedp.CSS("#signout")), chromedp.WaitVisible(chromedp.CSS("#signin-oidc")))
	c.run("back to a note", chromedp.Navigate(srv.URL+"/ui/note?repo=acme/app&key=a.md"), chromedp.WaitVisible(chromedp.CSS("#signin-oidc")))
}

// TestBrowserGrantsAndCSRF checks, in the browser, that another repo
// shows nothing, by link or by guessed address, and that a form whose
// anti-forgery token was taken out is refused.
func TestBrowserGrantsAndCSRF(t *testing.T) {
	c := startChrome(t)
	srv := startServer(t)
	seedTeam(t, srv)
	c.signInByToken(srv.URL, srv.CreateToken(t, "bob", grant("acme/app", store.LevelRead)))
	for _, path := range []string{"/ui/repo?repo=other/secret", "/ui/note?repo=other/secret&key=plans.md",
		"/ui/history?repo=other/secret&key=plans.md", "/ui/search?q=secret+plans"} {
		c.run("open "+path, chromedp.Navigate(srv.URL+path), chromedp.WaitVisible(chromedp.CSS("main")))
		if body := c.text("main"); strings.Contains(body, "plans.md") || strings.Contains(body, "other/secret") {
			t.Errorf("%s shows the other repo: %q", path, body)
		}
		if !strings.Contains(path, "search") {
			if got := c.text("#error"); !strings.Contains(got, "not found") {
				t.Errorf("%s says %q, want not found", path, got)
			}
		}
	}
	c.run("open a guessed note", chromedp.Navigate(srv.URL+"/ui/note?repo=other/secret&key=plans.md"), chromedp.WaitVisible(chromedp.CSS("#error")))
	c.shot("not-found")
	c.run("sign out without the token",
		chromedp.Navigate(srv.URL+"/ui/"),
		chromedp.SetAttributeValue(chromedp.CSS(`form[action="/ui/signout"] input[name="csrf"]`), "value", ""),
		chromedp.Click(chromedp.CSS("#signout")),
		chromedp.WaitVisible(chromedp.CSS("#error")))
	if got := c.text("#error"); !strings.Contains(got, "anti-forgery token") {
		t.Errorf("sign-out without the token says %q, want it refused", got)
	}
	c.run("still signed in", chromedp.Navigate(srv.URL+"/ui/"), chromedp.WaitVisible(chromedp.CSS("#repos")))
}

// unsafeElements counts the elements of the page that could run script:
// scripts, frames, elements with an event handler attribute, and links or
// sources to javascript: or data: URLs.
const unsafeElements = `[...document.querySelectorAll("*")].filter(e =>
	["SCRIPT", "IFRAME", "OBJECT", "EMBED"].includes(e.tagName) ||
	[...e.attributes].some(a => /^on/i.test(a.name) || (/^(href|src|action|formaction)$/i.test(a.name) && /^\s*(javascript|data):/i.test(a.value)))
).length`

// TestBrowserRunsNoScriptFromNotes opens a note that tries every way to
// run script and checks in the page that none ran.
func TestBrowserRunsNoScriptFromNotes(t *testing.T) {
	c := startChrome(t)
	srv := startServer(t)
	put(t, srv, srv.Token, "acme/app", map[string]string{"hostile.md": hostileNote})
	c.signInByToken(srv.URL, srv.CreateToken(t, "eve", grant("**", store.LevelRead)))
	for _, path := range []string{"/ui/note?repo=acme/app&key=hostile.md", "/ui/repo?repo=acme/app",
		"/ui/diff?repo=acme/app&key=hostile.md&from=1&to=1", "/ui/search?q=pwned"} {
		c.run("open "+path, chromedp.Navigate(srv.URL+path), chromedp.WaitVisible(chromedp.CSS("main")),
			chromedp.Sleep(200*time.Millisecond)) // an img's error event, were it allowed, fires after load
		if eval[bool](c, `window.pwned !== undefined`) {
			t.Errorf("%s: a script from the note ran (window.pwned is set)", path)
		}
		if n := eval[int](c, unsafeElements); n != 0 {
			t.Errorf("%s: %d script, frame, event handler, javascript: or data: elements in the page", path, n)
		}
		if got := c.header(srv.URL+path, "Content-Security-Policy"); !strings.HasPrefix(got, "default-src 'none'") {
			t.Errorf("%s: Content-Security-Policy = %q, want the view's", path, got)
		}
	}
	c.run("open the note", chromedp.Navigate(srv.URL+"/ui/note?repo=acme/app&key=hostile.md"), chromedp.WaitVisible(chromedp.CSS("#note")))
	clicked := eval[int](c, `[...document.querySelectorAll("#note a")].filter(a => a.textContent === "click me" || a.textContent === "raw link").map(a => a.click()).length`)
	c.run("let a click act", chromedp.Sleep(200*time.Millisecond))
	if eval[bool](c, `window.pwned !== undefined`) {
		t.Errorf("clicking the note's %d javascript: links ran one", clicked)
	}
	c.shot("hostile-note")
}
