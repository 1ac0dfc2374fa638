// Package webui is the browser view of the team's memory that "teammemd
// serve" offers at /ui: the repos a person's grants let them read, each
// note rendered (frontmatter as fields, Markdown as sanitised HTML) with
// its age and who last changed it, full-text search, each note's history
// with diffs and restore, what Claude Code will load of a repo's notes,
// the review of proposals to repos under review, and for admins the audit
// and purge. Pages are rendered on the server from embedded templates and
// need no JavaScript. A browser signs in with
// the organisation's OpenID Connect provider (authorization code flow with
// PKCE) or by pasting an API token once; its session lives in the store,
// so any replica sharing the database serves it.
package webui

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/teammemd/teammemd/server/auth"
	"github.com/teammemd/teammemd/server/store"
)

// Prefix is where the view is served.
const Prefix = "/ui"

//go:embed templates/*.html
var templateFiles embed.FS

//go:embed static
var staticFiles embed.FS

// Store is what the view reads of the server's store, and where it keeps
// its sessions.
type Store interface {
	store.HistoryReader
	store.WebSessions
	Snapshot(ctx context.Context, repo string, withValues bool) (store.Snapshot, error)
	Repos(ctx context.Context) ([]string, error)
	Purge(ctx context.Context, p store.Purge) (store.PurgeResult, error)
	Purges(ctx context.Context, repo string) ([]store.PurgeRecord, error)
	ListProposals(ctx context.Context, q store.ProposalQuery) ([]store.Proposal, error)
	TokenByHash(ctx context.Context, hash string) (store.Token, error)
	IdentityBinding(ctx context.Context, subject string) (store.IdentityBinding, error)
}

// Backend is what the view asks of the server it is part of, so that it
// checks credentials, writes and reads history exactly as the API does.
type Backend interface {
	// SignIn checks credential as the API checks a bearer credential,
	// within the budget of failed checks of r's client address. A refusal
	// is an *api.Error that says why.
	SignIn(r *http.Request, credential string) (auth.Principal, error)
	// Write stores value under key in repo as p's PUT would: the access
	// check, the secret scan and the limits, then the store and the change
	// waits. In a repo under review it makes a proposal instead, as a PUT
	// does, and returns its id with the zero Result.
	Write(ctx context.Context, p auth.Principal, repo, key, value string) (res store.Result, proposal int64, err error)
	// HistoryPage reads a page of key's revisions, newest first, before
	// version before (0: from the newest), with their content, bounded as
	// the API bounds its pages; next is the cursor of the next page, 0 at
	// the end.
	HistoryPage(ctx context.Context, repo, key string, before int64) (revs []store.Revision, next int64, err error)
	// Reviews is the review lane, as the API offers it.
	Reviews
	// Limit spends one request of subject's rate limit, the API's, for r,
	// a request of subject's session signed in with mode, which the
	// server's access log then names; an *api.Error when none is left.
	Limit(r *http.Request, subject, mode string) error
	// CheckReason refuses, with an *api.Error, a reason to be kept (a
	// purge's, in the audit log) in which the secret scan finds a secret.
	CheckReason(ctx context.Context, reason string) error
}

// OIDC is the organisation's provider, for signing in with it.
type OIDC struct {
	Issuer, ClientID string
	Scopes           []string
	// HTTPClient reaches the provider; nil means one with a 10 s timeout.
	HTTPClient *http.Client
}

// Options configure the view. Store, Backend and BaseURL are required.
type Options struct {
	Config  Config
	Store   Store
	Backend Backend
	// OIDC, when set, offers signing in with the provider.
	OIDC *OIDC
	// Auth is the [server.auth] in force: static tokens on offers signing
	// in with an API token, and every request of a session is checked
	// against it (loadSession).
	Auth auth.Config
	// BaseURL is the scheme and host browsers reach the server at for a
	// request, the server's one answer for the view and its other
	// endpoints (Config.URL when set); when it is https, the view's
	// cookies are Secure.
	BaseURL func(*http.Request) string
	Logger  *slog.Logger
	Now     func() time.Time
}

// UI serves the view.
type UI struct {
	cfg     Config
	store   Store
	backend Backend
	oidc    *oidcFlow
	auth    auth.Config
	baseURL func(*http.Request) string
	log     *slog.Logger
	now     func() time.Time
	pages   map[string]*template.Template
	handler http.Handler
}

// New returns the view for opts.
func New(opts Options) (*UI, error) {
	if opts.Store == nil || opts.Backend == nil || opts.BaseURL == nil {
		return nil, errors.New("webui: Options.Store, Options.Backend and Options.BaseURL are required")
	}
	if err := opts.Config.Validate(); err != nil {
		return nil, fmt.Errorf("webui: %w", err)
	}
	pages, err := parsePages()
	if err != nil {
		return nil, fmt.Errorf("webui: %w", err)
	}
	u := &UI{
		cfg: opts.Config.Resolve(), store: opts.Store, backend: opts.Backend, auth: opts.Auth,
		baseURL: opts.BaseURL, log: opts.Logger, now: opts.Now, pages: pages,
	}
	if u.log == nil {
		u.log = slog.New(slog.DiscardHandler)
	}
	if u.now == nil {
		u.now = time.Now
	}
	if opts.OIDC != nil {
		u.oidc = newOIDCFlow(*opts.OIDC)
	}
	u.handler = secureHeaders(u.routes())
	return u, nil
}

// ServeHTTP serves the view's pages under Prefix, and sends the server's root to them.
func (u *UI) ServeHTTP(w http.ResponseWriter, r *http.Request) { u.handler.ServeHTTP(w, r) }

// routes is the view's handler tree.
func (u *UI) routes() http.Handler {
	mux := http.NewServeMux()
	static, _ := fs.Sub(staticFiles, "static")
	// The bare prefix, and the server's own URL opened in a browser, lead
	// to the view.
	mux.Handle(Prefix, http.RedirectHandler(Prefix+"/", http.StatusSeeOther))
	mux.Handle("GET /{$}", http.RedirectHandler(Prefix+"/", http.StatusSeeOther))
	mux.Handle("GET "+Prefix+"/static/", http.StripPrefix(Prefix+"/static/", http.FileServerFS(static)))
	mux.HandleFunc("GET "+Prefix+"/signin", u.serveSignIn)
	mux.HandleFunc("POST "+Prefix+"/signin/token", u.serveTokenSignIn)
	mux.HandleFunc("POST "+Prefix+"/signin/oidc", u.serveOIDCStart)
	mux.HandleFunc("GET "+Prefix+"/signin/callback", u.serveOIDCCallback)
	mux.HandleFunc("POST "+Prefix+"/signout", u.signedIn(u.serveSignOut))
	mux.HandleFunc("GET "+Prefix+"/{$}", u.signedIn(u.serveRepos))
	mux.HandleFunc("GET "+Prefix+"/repo", u.signedIn(u.serveRepo))
	mux.HandleFunc("GET "+Prefix+"/note", u.signedIn(u.serveNote))
	mux.HandleFunc("GET "+Prefix+"/search", u.signedIn(u.serveSearch))
	mux.HandleFunc("GET "+Prefix+"/history", u.signedIn(u.serveHistory))
	mux.HandleFunc("GET "+Prefix+"/diff", u.signedIn(u.serveDiff))
	mux.HandleFunc("POST "+Prefix+"/restore", u.signedIn(u.serveRestore))
	mux.HandleFunc("GET "+Prefix+"/loads", u.signedIn(u.serveLoads))
	mux.HandleFunc("GET "+Prefix+"/review", u.signedIn(u.serveReview))
	mux.HandleFunc("GET "+Prefix+"/proposals", u.signedIn(u.serveOwnProposals))
	mux.HandleFunc("GET "+Prefix+"/proposal", u.signedIn(u.serveProposal))
	mux.HandleFunc("POST "+Prefix+"/proposal/approve", u.signedIn(u.serveApprove))
	mux.HandleFunc("POST "+Prefix+"/proposal/edit", u.signedIn(u.serveApproveEdited))
	mux.HandleFunc("POST "+Prefix+"/proposal/reject", u.signedIn(u.serveReject))
	mux.HandleFunc("POST "+Prefix+"/proposal/purge", u.signedIn(u.servePurgeProposal))
	mux.HandleFunc("GET "+Prefix+"/audit", u.signedIn(u.admin(u.serveAudit)))
	mux.HandleFunc("GET "+Prefix+"/purge", u.signedIn(u.admin(u.servePurgeForm)))
	mux.HandleFunc("POST "+Prefix+"/purge", u.signedIn(u.admin(u.servePurge)))
	mux.HandleFunc(Prefix+"/", func(w http.ResponseWriter, r *http.Request) {
		u.fail(w, r, nil, notFound())
	})
	return mux
}

// isAdmin reports whether s's subject is one of the admins.
func (u *UI) isAdmin(s *session) bool {
	return s != nil && s.Subject != "" && slices.Contains(u.cfg.Admins, s.Subject)
}

// admin lets only admins through; anyone else gets the 404 of a page that
// is not there.
func (u *UI) admin(next sessionHandler) sessionHandler {
	return func(w http.ResponseWriter, r *http.Request, s *session) {
		if !u.isAdmin(s) {
			u.fail(w, r, s, notFound())
			return
		}
		next(w, r, s)
	}
}

// contentSecurityPolicy lets a page load only the view's own stylesheet
// and images: no script of any origin runs, no form posts elsewhere, and
// no other site frames it.
const contentSecurityPolicy = "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

// secureURL reports whether an address is https.
func secureURL(raw string) bool { return strings.HasPrefix(raw, "https://") }

// secureHeaders sets the security headers on every answer. The referrer
// policy keeps the page's address from other sites, and lets the browser
// name this origin in a form's Origin header, which validCSRF checks (with
// no-referrer, browsers send "Origin: null").
func secureHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "same-origin")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		next.ServeHTTP(w, r)
	})
}
