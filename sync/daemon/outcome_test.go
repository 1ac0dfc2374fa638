package daemon

import (
	"fmt"
	"net/http"
	"net/http/httputil"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/servertest"
	"github.com/teammemd/teammemd/server/store"
)

// failing serves srv through a proxy that answers status, with the
// protocol's error body, to every request of method ("" for every
// request).
func failing(t *testing.T, srv *servertest.Server, method string, status int) string {
	target, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.Transport = newTransport(t)
	return newLoopbackServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if method != "" && r.Method != method {
			rp.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		fmt.Fprintf(w, `{"type":"error","error":{"type":"api_error","message":"injected","details":{"error_code":"internal_error"}}}`)
	}))
}

// outcomeCase is one kind of failure and what the daemon must show for it.
type outcomeCase struct {
	name string
	// start returns the server URL and token the repo syncs with.
	start  func(t *testing.T, srv *servertest.Server) (url, token string)
	limits api.Limits
	files  map[string]string
	// The status the repo must settle in: State, a Halted and a
	// Suppressed that hold these (none when empty), the files held back,
	// whether a retry is due and the server unreachable.
	state, halted, suppressed string
	held                      []string
	heldReason                string
	retry, unreachable        bool
	// onServer are the files the server must hold by then.
	onServer []string
}

func realServer(_ *testing.T, srv *servertest.Server) (string, string) { return srv.URL, srv.Token }

var bigNote = strings.Repeat("far over the entry limit ", 10) + "\n"

var outcomeCases = []outcomeCase{{
	name:   "401 token rejected: the repo stops until the token changes",
	start:  func(_ *testing.T, srv *servertest.Server) (string, string) { return srv.URL, "tmd_wrong" },
	files:  map[string]string{"a.md": "a\n"},
	state:  StateUnauthorized,
	halted: "rejected the token",
}, {
	name: "403 on every request, no grant on the repo: the repo stops",
	start: func(t *testing.T, srv *servertest.Server) (string, string) {
		return srv.URL, srv.CreateToken(t, "bob", store.Grant{Pattern: "other/*", Level: store.LevelWrite})
	},
	files:  map[string]string{"a.md": "a\n"},
	state:  StateDenied,
	halted: "no access to this repo",
}, {
	name: "403 on a push, a read-only token: pushes stop, pulls go on",
	start: func(t *testing.T, srv *servertest.Server) (string, string) {
		return srv.URL, srv.CreateToken(t, "bob", store.Grant{Pattern: "**", Level: store.LevelRead})
	},
	files:      map[string]string{"a.md": "a\n"},
	state:      StateStopped,
	suppressed: "can read this repo but not write it",
}, {
	name:       "413 entry too large, three of them in one batch: each is held back, the rest pushed",
	start:      realServer,
	limits:     api.Limits{MaxEntryBytes: 100},
	files:      map[string]string{"a.md": "a\n", "b.md": bigNote, "c.md": bigNote, "d.md": bigNote},
	state:      StateHeld,
	held:       []string{"b.md", "c.md", "d.md"},
	heldReason: api.CodeEntryTooLarge,
	onServer:   []string{"a.md"},
}, {
	name:       "422 a secret the server found, in three notes of one batch: each is held back, the rest pushed",
	start:      realServer,
	files:      map[string]string{"a.md": "a\n", "b.md": "b FORBIDDEN\n", "c.md": "c FORBIDDEN\n", "d.md": "d FORBIDDEN\n"},
	state:      StateHeld,
	held:       []string{"b.md", "c.md", "d.md"},
	heldReason: api.CodeSecretDetected,
	onServer:   []string{"a.md"},
}, {
	name:       "413 too many entries: what fits is pushed, the rest held back",
	start:      realServer,
	limits:     api.Limits{MaxEntries: 2},
	files:      map[string]string{"a.md": "a\n", "b.md": "b\n", "c.md": "c\n"},
	state:      StateHeld,
	held:       []string{"c.md"},
	heldReason: "does not fit",
	onServer:   []string{"a.md", "b.md"},
}, {
	name: "503 on a push: retried with backoff",
	start: func(t *testing.T, srv *servertest.Server) (string, string) {
		return failing(t, srv, http.MethodPut, 503), srv.Token
	},
	files:      map[string]string{"a.md": "a\n"},
	state:      StateRetrying,
	retry:      true,
	heldReason: "",
}, {
	name: "502 from a proxy: retried, the server unreachable",
	start: func(t *testing.T, srv *servertest.Server) (string, string) {
		return failing(t, srv, "", 502), srv.Token
	},
	files:       map[string]string{"a.md": "a\n"},
	state:       StateRetrying,
	retry:       true,
	unreachable: true,
}, {
	name: "no answer: retried, the server unreachable",
	start: func(_ *testing.T, srv *servertest.Server) (string, string) {
		srv.Stop()
		return srv.URL, srv.Token
	},
	files:       map[string]string{"a.md": "a\n"},
	state:       StateRetrying,
	retry:       true,
	unreachable: true,
}, {
	name: "a redirect to another origin: the repo stops as wrong-server",
	start: func(t *testing.T, srv *servertest.Server) (string, string) {
		elsewhere := newLoopbackServer(t, http.NotFoundHandler())
		return newLoopbackServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, elsewhere+r.URL.RequestURI(), http.StatusTemporaryRedirect)
		})), srv.Token
	},
	files:  map[string]string{"a.md": "a\n"},
	state:  StateWrongServer,
	halted: "redirected the request",
}}

// TestFailureOutcomes checks what the daemon does on each kind of failure,
// with a real engine on a real server: the repo stops, pushes stop, an
// entry is held back while the rest syncs, or the failure is retried.
func TestFailureOutcomes(t *testing.T) {
	for _, tc := range outcomeCases {
		t.Run(tc.name, func(t *testing.T) {
			bubble(t, func(t *testing.T) {
				srv := startServer(t, servertest.WithLimits(tc.limits), servertest.WithScanner(servertest.MarkerScanner("FORBIDDEN")))
				url, token := tc.start(t, srv)
				dir := t.TempDir()
				for k, v := range tc.files {
					write(t, dir, k, v)
				}
				n := startNode(t, token, Plan{Specs: []Spec{{Repo: slug, Dir: dir, Server: url, Source: "test"}}}, nil)
				n.settles(t, dir, tc.describe(), func(r RepoStatus) bool {
					return tc.settled(r) && (tc.onServer == nil || slices.Equal(keysOf(serverEntries(t, srv)), tc.onServer))
				})
			})
		})
	}
}

// settled reports whether r is the status tc wants.
func (tc outcomeCase) settled(r RepoStatus) bool {
	var held []string
	for _, h := range r.Held {
		if !strings.Contains(h.Reason, tc.heldReason) {
			return false
		}
		held = append(held, h.Path)
	}
	return r.State == tc.state && slices.Equal(held, tc.held) &&
		(tc.halted == "") == (r.Halted == "") && strings.Contains(r.Halted, tc.halted) &&
		(tc.suppressed == "") == (r.Suppressed == "") && strings.Contains(r.Suppressed, tc.suppressed) &&
		tc.retry == (r.NextRetry != nil) && tc.unreachable == (r.UnreachableSince != nil)
}

func (tc outcomeCase) describe() string {
	return fmt.Sprintf("state %s, halted %q, suppressed %q, held %v (%q), retry %v, unreachable %v; the server holding %v",
		tc.state, tc.halted, tc.suppressed, tc.held, tc.heldReason, tc.retry, tc.unreachable, tc.onServer)
}

func describe(r RepoStatus) string {
	return fmt.Sprintf("state %s, halted %q, suppressed %q, held %v, retry %v (%s), unreachable %v, last push %+v",
		r.State, r.Halted, r.Suppressed, r.Held, r.NextRetry != nil, r.RetryCause, r.UnreachableSince != nil, r.LastPush)
}
