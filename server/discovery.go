package server

import (
	"context"
	"net/http"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/auth"
)

// storeIdentifier is a store that knows its identity, made when its
// database was created.
type storeIdentifier interface {
	StoreID(ctx context.Context) (string, error)
}

// authDescriber is an Authenticator that says which modes are on and how to
// log in.
type authDescriber interface {
	ModeNames() []string
	Login(ctx context.Context) *api.Login
}

// serveDiscovery answers GET /.well-known/teammemd without authentication:
// the version, the store identity, the auth modes and device login.
func (s *Server) serveDiscovery(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		s.writeError(w, r, api.NewError(http.StatusMethodNotAllowed, api.CodeInvalidRequest, "use GET"))
		return
	}
	d := api.Discovery{Version: s.version, AuthModes: []string{auth.ModeToken}}
	if id, ok := s.store.Store.(storeIdentifier); ok {
		sid, err := id.StoreID(r.Context())
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		d.StoreID = sid
	}
	if ad, ok := s.auth.(authDescriber); ok {
		d.AuthModes, d.Login = ad.ModeNames(), ad.Login(r.Context())
	}
	w.Header().Set("Cache-Control", "no-store")
	s.writeJSON(w, http.StatusOK, d)
}
