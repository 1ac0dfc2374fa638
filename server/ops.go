package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/store"
	"github.com/teammemd/teammemd/server/webui"
)

// readyTimeout bounds the store probe of /readyz.
const readyTimeout = 2 * time.Second

// readyProbeRepo is a valid slug no one is expected to write; reading it
// proves the store answers.
const readyProbeRepo = "teammemd.internal/readyz"

// pinger is a store or waker that can be checked cheaply.
type pinger interface {
	Ping(ctx context.Context) error
}

// routes builds the server's handler tree.
func (s *Server) routes(gatherer prometheus.Gatherer) http.Handler {
	mux := http.NewServeMux()
	mux.Handle(api.Path, s.instrument("team_memory",
		s.apiRoute([]string{http.MethodGet, http.MethodPut}, s.serveMemory)))
	mux.Handle(api.HistoryPath, s.instrument("history",
		s.apiRoute([]string{http.MethodGet}, s.serveHistory)))
	mux.Handle(api.ProposalsPath, s.instrument("proposals",
		s.apiRoute([]string{http.MethodGet}, s.serveProposals)))
	mux.Handle(api.ProposalsPath+"/", s.instrument("proposal",
		s.apiRoute([]string{http.MethodGet, http.MethodPost}, s.serveProposal)))
	s.personalRoutes(mux)
	mux.Handle(api.DiscoveryPath, s.instrument("discovery", http.HandlerFunc(s.serveDiscovery)))
	if s.mcp != nil {
		mux.Handle(MCPPath, s.instrument("mcp", s.mcpRoute(s.mcp)))
		mux.Handle(resourceMetadataPath, s.instrument("resource_metadata", http.HandlerFunc(s.serveResourceMetadata)))
		mux.Handle(mcpResourceMetadataPath, s.instrument("resource_metadata", http.HandlerFunc(s.serveResourceMetadata)))
	}
	mux.Handle("/livez", s.instrument("livez", http.HandlerFunc(s.serveLive)))
	mux.Handle("/readyz", s.instrument("readyz", http.HandlerFunc(s.serveReady)))
	if s.ui != nil {
		mux.Handle(webui.Prefix+"/", s.instrument("ui", s.ui))
		mux.Handle(webui.Prefix, s.instrument("ui", s.ui))
		// The server's own URL, opened in a browser, leads to the web view.
		mux.Handle("GET /{$}", s.instrument("ui", s.ui))
	}
	if gatherer != nil {
		mux.Handle("/metrics", s.instrument("metrics", promhttp.HandlerFor(gatherer, promhttp.HandlerOpts{})))
	}
	mux.Handle("/", s.instrument("other", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.writeError(w, r, api.NewError(http.StatusNotFound, api.CodeInvalidRequest, "no such route"))
	})))
	return mux
}

// serveLive answers 200 while the process runs.
func (s *Server) serveLive(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write([]byte("ok\n"))
}

// serveReady answers 200 when the store answers and has room for writes
// (storageFull), the waker hears of other replicas' changes (when it can
// tell) and the server is not shutting down, 503 otherwise. A full
// storage does not fail /livez: the process is well, and restarting it
// makes no room.
func (s *Server) serveReady(w http.ResponseWriter, r *http.Request) {
	select {
	case <-s.stopping:
		s.writeError(w, r, unavailable(w, "server is shutting down", time.Second))
		return
	default:
	}
	if full := s.storageFull(w); full != nil {
		s.writeError(w, r, full)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
	defer cancel()
	if err := s.probeStore(ctx); err != nil {
		s.log.Warn("store not ready", "err", err)
		s.writeError(w, r, unavailable(w, "store is not answering", time.Second))
		return
	}
	if p, ok := s.waker.(pinger); ok {
		if err := p.Ping(ctx); err != nil {
			s.log.Warn("change feed not ready", "err", err)
			s.writeError(w, r, unavailable(w, "not hearing of other replicas' changes", time.Second))
			return
		}
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write([]byte("ok\n"))
}

// probeStore pings the store, or reads a repo from it when it cannot ping.
func (s *Server) probeStore(ctx context.Context) error {
	if p, ok := s.store.Store.(pinger); ok {
		return p.Ping(ctx)
	}
	_, err := s.store.Snapshot(ctx, readyProbeRepo, false)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("probe store: %w", err)
	}
	return nil
}
