package webui_test

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/server/store"
)

// hostileNote holds everything a note could try to run in a reader's
// browser.
const hostileNote = `---
name: "<script>window.pwned=1</script>"
description: <img src=x onerror="window.pwned=1">
type: project
---
# Hostile

<script>window.pwned = 1</script>
<img src="x" onerror="window.pwned=1">
<div onclick="window.pwned=1" style="background:url(javascript:window.pwned=1)">raw html</div>
<iframe src="javascript:window.pwned=1"></iframe>

[click me](javascript:window.pwned=1)
[data](data:text/html;base64,PHNjcmlwdD53aW5kb3cucHdu)
![img](javascript:window.pwned=1)
<a href="javascript:window.pwned=1">raw link</a>
[ok link](https://example.com/docs)
`

// unsafeMarkup finds, in real tags (text is escaped, so its "<" is
// "&lt;"), a script, a frame, an event handler attribute, or a URL
// attribute to javascript: or data:.
var unsafeMarkup = regexp.MustCompile(`(?i)<(script|iframe|object|embed)\b|<[a-z][^>]*\son[a-z]+\s*=|<[a-z][^>]*\s(href|src|action|formaction)\s*=\s*["']?\s*(javascript|data|vbscript):`)

func TestNoteSanitised(t *testing.T) {
	srv := startServer(t)
	put(t, srv, srv.Token, "acme/app", map[string]string{"hostile.md": hostileNote})
	b := signedIn(t, srv, "lee", grant("**", store.LevelRead))
	for _, path := range []string{"/ui/note?repo=acme/app&key=hostile.md", "/ui/repo?repo=acme/app",
		"/ui/search?q=pwned", "/ui/diff?repo=acme/app&key=hostile.md&from=1&to=1"} {
		p := b.get(path)
		if p.status != http.StatusOK {
			t.Fatalf("GET %s = %d", path, p.status)
		}
		for _, bad := range unsafeMarkup.FindAllString(p.body, -1) {
			t.Errorf("GET %s holds markup that could run: %s", path, bad)
		}
	}
	p := b.get("/ui/note?repo=acme/app&key=hostile.md")
	for _, want := range []string{`href="https://example.com/docs"`, "&lt;script&gt;window.pwned=1&lt;/script&gt;", "<h1"} {
		if !strings.Contains(p.body, want) {
			t.Errorf("note page lacks %q:\n%s", want, p.body)
		}
	}
}

func TestRestore(t *testing.T) {
	srv := startServer(t)
	put(t, srv, srv.Token, "acme/app", map[string]string{"a.md": "first line\nsecond\n"})
	put(t, srv, srv.Token, "acme/app", map[string]string{"a.md": "first line\nchanged\n"})
	writer := signedIn(t, srv, "mia", grant("acme/**", store.LevelWrite))
	reader := signedIn(t, srv, "ned", grant("acme/**", store.LevelRead))

	diff := writer.get("/ui/diff?repo=acme/app&key=a.md&from=1&to=2")
	for _, want := range []string{`<span class="remove">- second</span>`, `<span class="add">&#43; changed</span>`, `<span class="keep">  first line</span>`} {
		if !strings.Contains(diff.body, want) {
			t.Errorf("diff 1→2 lacks %q:\n%s", want, diff.body)
		}
	}
	if h := reader.get("/ui/history?repo=acme/app&key=a.md"); strings.Contains(h.body, "Restore version") {
		t.Errorf("a reader's history page offers restore:\n%s", h.body)
	}
	form := url.Values{"csrf": {reader.get("/ui/").csrf(t)}, "repo": {"acme/app"}, "key": {"a.md"}, "version": {"1"}}
	if p := reader.post("/ui/restore", form); p.status != http.StatusForbidden {
		t.Errorf("a reader's restore = %d, want 403", p.status)
	}
	h := writer.get("/ui/history?repo=acme/app&key=a.md")
	if !strings.Contains(h.body, "Restore version 1") || !strings.Contains(h.body, "<td>API token</td>") {
		t.Fatalf("a writer's history page does not offer restoring version 1:\n%s", h.body)
	}
	form.Set("csrf", h.csrf(t))
	p := writer.post("/ui/restore", form)
	if p.status != http.StatusOK || !strings.Contains(p.body, "mia") {
		t.Errorf("restore = %d at %s, want the history with mia's revision:\n%s", p.status, p.url, p.body)
	}
	if got := entries(t, srv, "acme/app")["a.md"]; got != "first line\nsecond\n" {
		t.Errorf("a.md after restoring version 1 = %q, want its content", got)
	}
	form.Set("version", "99")
	if p := writer.post("/ui/restore", form); p.status != http.StatusNotFound {
		t.Errorf("restore of a version that is not there = %d, want 404", p.status)
	}
}

// TestStaleNotes checks each note's age and the stale flag.
func TestStaleNotes(t *testing.T) {
	srv := startServer(t)
	put(t, srv, srv.Token, "acme/app", map[string]string{"fresh.md": "new"})
	b := signedIn(t, srv, "olga", grant("**", store.LevelRead))
	if p := b.get("/ui/repo?repo=acme/app"); strings.Contains(p.body, "stale-flag") || !strings.Contains(p.body, "just now") {
		t.Errorf("repo page of a fresh note flags it stale, or does not say its age:\n%s", p.body)
	}
	stale := startServer(t, withStaleAfter(0))
	put(t, stale, stale.Token, "acme/app", map[string]string{"old.md": "old"})
	b = signedIn(t, stale, "olga", grant("**", store.LevelRead))
	if p := b.get("/ui/note?repo=acme/app&key=old.md"); !strings.Contains(p.body, `id="stale"`) {
		t.Errorf("note page of a note older than stale_after does not flag it:\n%s", p.body)
	}
}

func TestLoads(t *testing.T) {
	srv := startServer(t)
	var index strings.Builder
	for i := range 250 {
		fmt.Fprintf(&index, "- line %d\n", i+1)
	}
	put(t, srv, srv.Token, "acme/app", map[string]string{"MEMORY.md": index.String(), "big.md": strings.Repeat("x", 102_401), "small.md": "ok"})
	b := signedIn(t, srv, "pat", grant("**", store.LevelRead))
	p := b.get("/ui/loads?repo=acme/app")
	for _, want := range []string{"250 lines", "the last 50 lines", `<span class="cut" id="cut">- line 201`, "big.md</a>: 102401 bytes"} {
		if !strings.Contains(p.body, want) {
			t.Errorf("loads page lacks %q:\n%s", want, p.body)
		}
	}
	if strings.Contains(p.body, "small.md") {
		t.Errorf("loads page lists small.md as too big")
	}
}

// TestUnsafeMarkupFinds keeps the sanitisation test able to fail.
func TestUnsafeMarkupFinds(t *testing.T) {
	for _, in := range []string{`<script>x</script>`, `<img src=x onerror="y">`, `<a href="javascript:y">`,
		`<img src='data:text/html,x'>`, `<div class=a onclick=y>`} {
		if !unsafeMarkup.MatchString(in) {
			t.Errorf("unsafeMarkup misses %s", in)
		}
	}
	for _, in := range []string{`&lt;script&gt;`, `<a href="https://example.com/javascript:">`, `<p>onerror=x</p>`} {
		if unsafeMarkup.MatchString(in) {
			t.Errorf("unsafeMarkup finds %s", in)
		}
	}
}

func TestSearchBounded(t *testing.T) {
	srv := startServer(t)
	notes := map[string]string{}
	for i := range 60 {
		notes[fmt.Sprintf("n%02d.md", i)] = "common word"
	}
	put(t, srv, srv.Token, "acme/app", notes)
	b := signedIn(t, srv, "uma", grant("**", store.LevelRead))
	p := b.get("/ui/search?q=COMMON")
	if n := strings.Count(p.body, `<li><a href="/ui/note?`); n != 50 || !strings.Contains(p.body, `id="truncated"`) {
		t.Errorf("search matching 60 notes shows %d and truncated=%v, want 50 and a note that it was cut", n, strings.Contains(p.body, `id="truncated"`))
	}
	if p := b.get("/ui/search?q=" + strings.Repeat("x", 201)); p.status != http.StatusBadRequest {
		t.Errorf("search of 201 bytes = %d, want 400", p.status)
	}
}
