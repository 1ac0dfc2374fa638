package server

import (
	"net/http"
	"testing"

	"github.com/teammemd/teammemd/server/webui"
)

// TestRootLeadsToTheWebView: the server's own URL opened in a browser
// leads to the web view while it is on; with it off, and for any other
// unknown route or method, the answer stays the API's 404.
func TestRootLeadsToTheWebView(t *testing.T) {
	s, _ := newInternal(t, Config{}, Options{})
	for _, method := range []string{http.MethodGet, http.MethodHead} {
		w := call(s, "", method, "/", "")
		if w.Code != http.StatusSeeOther || w.Header().Get("Location") != webui.Prefix+"/" {
			t.Errorf("%s / = %d to %q, want %d to %s/", method, w.Code, w.Header().Get("Location"), http.StatusSeeOther, webui.Prefix)
		}
	}
	for _, rq := range []struct{ method, target string }{{http.MethodPost, "/"}, {http.MethodGet, "/nowhere"}} {
		if w := call(s, "", rq.method, rq.target, ""); w.Code != http.StatusNotFound {
			t.Errorf("%s %s = %d, want 404", rq.method, rq.target, w.Code)
		}
	}
	off := false
	s, _ = newInternal(t, Config{UI: webui.Config{Enabled: &off}}, Options{})
	if w := call(s, "", http.MethodGet, "/", ""); w.Code != http.StatusNotFound {
		t.Errorf("GET / with the web view off = %d, want 404", w.Code)
	}
}
