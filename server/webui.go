package server

import (
	"context"
	"net/http"
	"time"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/auth"
	"github.com/teammemd/teammemd/server/store"
	"github.com/teammemd/teammemd/server/webui"
)

// newUI builds the web view when cfg turns it on and the store keeps web
// sessions; nil when it is off.
func (s *Server) newUI(st store.Store, cfg Config) (http.Handler, error) {
	if !cfg.UI.On() {
		return nil, nil
	}
	uiStore, ok := st.(webui.Store)
	if !ok {
		s.log.Warn("web view off: the store keeps no web sessions")
		return nil, nil
	}
	opts := webui.Options{Config: cfg.UI, Store: uiStore, Backend: uiBackend{s}, Auth: cfg.Auth,
		BaseURL: s.baseURL, Logger: s.log, Now: func() time.Time { return s.now() }}
	if o := cfg.Auth.Resolve().OIDC; o.Enabled {
		opts.OIDC = &webui.OIDC{Issuer: o.Issuer, ClientID: o.ClientID, Scopes: o.Scopes}
	}
	ui, err := webui.New(opts)
	if err != nil {
		return nil, err
	}
	return ui, nil
}

// uiBackend is the server's side of the web view: it checks credentials,
// writes and reads history as the API does.
type uiBackend struct{ s *Server }

// SignIn implements webui.Backend.
func (b uiBackend) SignIn(r *http.Request, credential string) (auth.Principal, error) {
	p, err := b.s.admitCredential(noHeaders{}, r, credential)
	if err == nil {
		info := infoFrom(r.Context())
		info.subject, info.mode = p.Subject, p.Mode
	}
	return p, err
}

// noHeaders drops the headers an API answer would carry (Retry-After):
// the web view answers with a page.
type noHeaders struct{}

func (noHeaders) Header() http.Header         { return http.Header{} }
func (noHeaders) Write(b []byte) (int, error) { return len(b), nil }
func (noHeaders) WriteHeader(int)             {}

// Write implements webui.Backend: a PUT of one entry, checked and stored
// (or, on a repo under review, proposed) as the API's put does.
func (b uiBackend) Write(ctx context.Context, p auth.Principal, repo, key, value string) (store.Result, int64, error) {
	s := b.s
	if err := api.ValidateKey(key, s.limits); err != nil {
		return store.Result{}, 0, err
	}
	if len(value) > s.limits.MaxEntryBytes {
		return store.Result{}, 0, api.NewError(http.StatusRequestEntityTooLarge, api.CodeEntryTooLarge,
			"the content is over the server's limit for one entry")
	}
	resp, err := s.write(ctx, p, repo, api.PutRequest{Entries: map[string]string{key: value}}, "",
		origin{client: api.DescribeClient(credential(p), webViewAgent, "")})
	if err != nil || resp.Review != nil {
		var id int64
		if resp.Review != nil {
			id = resp.Review.Proposal
		}
		return store.Result{}, id, err
	}
	return store.Result{Version: resp.Version, Checksum: resp.Checksum, LastModified: resp.LastModified}, 0, nil
}

// ReviewRequired implements webui.Reviews.
func (b uiBackend) ReviewRequired(repo string) bool { return b.s.ReviewRequired(repo) }

// Proposals implements webui.Reviews.
func (b uiBackend) Proposals(ctx context.Context, p auth.Principal, q store.ProposalQuery) ([]store.Proposal, error) {
	return b.s.Proposals(ctx, p, q)
}

// ShowProposal implements webui.Reviews.
func (b uiBackend) ShowProposal(ctx context.Context, p auth.Principal, id int64) (webui.ProposalView, error) {
	v, err := b.s.ShowProposal(ctx, p, id)
	return webui.ProposalView(v), err
}

// Approve implements webui.Reviews.
func (b uiBackend) Approve(ctx context.Context, p auth.Principal, id int64, edit api.ApproveRequest) (webui.ProposalView, error) {
	v, err := b.s.Approve(ctx, p, id, edit)
	return webui.ProposalView(v), err
}

// Reject implements webui.Reviews.
func (b uiBackend) Reject(ctx context.Context, p auth.Principal, id int64, reason string) (webui.ProposalView, error) {
	v, err := b.s.Reject(ctx, p, id, reason)
	return webui.ProposalView(v), err
}

// CheckReason implements webui.Backend.
func (b uiBackend) CheckReason(ctx context.Context, reason string) error {
	return b.s.checkReason(ctx, reason)
}

// PurgeProposal implements webui.Reviews.
func (b uiBackend) PurgeProposal(ctx context.Context, p auth.Principal, id int64) (webui.ProposalView, error) {
	v, err := b.s.PurgeProposal(ctx, p, id)
	return webui.ProposalView(v), err

}

// HistoryPage implements webui.Backend with the API's history page: at
// most defaultHistoryLimit revisions, ending before the one whose content
// would pass MaxHistoryPageBytes.
func (b uiBackend) HistoryPage(ctx context.Context, repo, key string, before int64) ([]store.Revision, int64, error) {
	hr := historyRequest{q: store.HistoryQuery{Repo: repo, Key: key, Before: before}, limit: defaultHistoryLimit, content: true}
	page, err := b.s.readHistoryPage(ctx, hr)
	if err != nil {
		return nil, 0, err
	}
	revs := make([]store.Revision, len(page.revs))
	for i, rev := range page.revs {
		if rev.Size == nil {
			revs[i] = rev
			continue
		}
		if revs[i], err = b.s.withContent(ctx, rev); err != nil {
			return nil, 0, err
		}
	}
	var next int64
	if page.more {
		next = page.revs[len(page.revs)-1].Version
	}
	return revs, next, nil
}

// Limit implements webui.Backend with the per-subject rate limit of the
// API, and names the session's subject and mode in r's access log line.
func (b uiBackend) Limit(r *http.Request, subject, mode string) error {
	info := infoFrom(r.Context())
	info.subject, info.mode = subject, mode
	return b.s.limit(noHeaders{}, subject)
}
