package server

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/auth"
	"github.com/teammemd/teammemd/server/store"
)

// The personal lane (PROTOCOL.md section 16): each subject's own lanes of
// ciphertext and its wrapped key, reached by its own credentials only. The
// namespace is the principal's subject; grants play no part.

// personalRoutes adds the personal lane's routes to mux.
func (s *Server) personalRoutes(mux *http.ServeMux) {
	mux.Handle(api.PersonalPath, s.instrument("personal_memory",
		s.apiRoute([]string{http.MethodGet, http.MethodPut, http.MethodDelete}, s.personalRoute(s.serveLane))))
	mux.Handle(api.PersonalKeyPath, s.instrument("personal_key",
		s.apiRoute([]string{http.MethodGet, http.MethodPut}, s.personalRoute(s.servePersonalKey))))
	mux.Handle(api.PersonalLanesPath, s.instrument("personal_lanes",
		s.apiRoute([]string{http.MethodGet}, s.personalRoute(s.serveLanes))))
}

// personalRoute answers 404 for every personal route of a server that does
// not offer the lane, or whose store cannot keep it.
func (s *Server) personalRoute(h apiHandler) apiHandler {
	return func(w http.ResponseWriter, r *http.Request, p auth.Principal) error {
		if s.personal == nil {
			return api.NewError(http.StatusNotFound, api.CodePersonalDisabled, "this server does not offer the personal lane")
		}
		return h(w, r, p)
	}
}

// currentKey reads the subject's key ID, "" before init, and names it in
// the answer's key header.
func (s *Server) currentKey(w http.ResponseWriter, r *http.Request, subject string) (string, error) {
	k, err := s.personal.PersonalKey(r.Context(), subject)
	if errors.Is(err, store.ErrNoPersonalKey) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read personal key: %w", err)
	}
	w.Header().Set(api.PersonalKeyHeader, k.KeyID)
	return k.KeyID, nil
}

// serveLane answers a lane's route: GET (full, hashes, change wait) and PUT
// as the team route does, and DELETE.
func (s *Server) serveLane(w http.ResponseWriter, r *http.Request, p auth.Principal) error {
	current, err := s.currentKey(w, r, p.Subject)
	if err != nil {
		return err
	}
	q, lane, sent, err := laneRequest(r)
	if err != nil {
		return err
	}
	repo := store.PersonalRepo(p.Subject, lane)
	switch r.Method {
	case http.MethodPut:
		return s.putLane(w, r, p, repo, sent, current)
	case http.MethodDelete:
		return s.dropLane(w, r, p.Subject, lane, sent, current)
	}
	view := q.Get(api.ParamView)
	if view != "" && view != api.ViewHashes {
		return api.NewError(http.StatusBadRequest, api.CodeInvalidRequest, "view must be empty or \"hashes\"")
	}
	wait, err := s.waitParam(q, view)
	if err != nil {
		return err
	}
	inm := firstETag(r.Header.Get("If-None-Match"))
	if wait > 0 && inm != "" {
		return s.waitChange(&keyHeaderWriter{ResponseWriter: w, s: s, r: r, subject: p.Subject}, r, waitAsk{subject: p.Subject, repo: repo, inm: inm}, wait)
	}
	return s.get(w, r, repo, view == api.ViewHashes, inm, onlyAt{})
}

// laneRequest parses a lane request's query and its lane, and the key ID
// its header names.
func laneRequest(r *http.Request) (url.Values, string, string, error) {
	q, err := parseQuery(r)
	if err != nil {
		return nil, "", "", err
	}
	lane := q.Get(api.ParamLane)
	if !api.ValidLaneID(lane) {
		return nil, "", "", api.NewError(http.StatusBadRequest, api.CodeInvalidRequest,
			fmt.Sprintf("lane must be %d lowercase hex digits", api.LaneIDBytes))
	}
	sent := r.Header.Get(api.PersonalKeyHeader)
	if !api.ValidKeyID(sent) {
		return nil, "", "", api.NewError(http.StatusBadRequest, api.CodeInvalidRequest,
			fmt.Sprintf("the %s header must name the key, %d lowercase hex digits", api.PersonalKeyHeader, api.KeyIDBytes))
	}
	return q, lane, sent, nil
}

// keyMatches refuses a lane write or delete that names a key other than
// the subject's current one, current ("" before init).
func keyMatches(sent, current string) error {
	switch {
	case current == "":
		return errNotInitialized()
	case sent != current:
		return errKeyChanged()
	}
	return nil
}

func errNotInitialized() error {
	return api.NewError(http.StatusConflict, api.CodePersonalNotInitialized,
		"the personal lane has no key yet: run `teammemd personal init`; nothing was written")
}

func errKeyChanged() error {
	return api.NewError(http.StatusConflict, api.CodePersonalKeyChanged,
		"the personal key was rotated on another machine: run `teammemd personal join`; nothing was written")
}

// putLane applies an upsert-merge to a lane: the body's form (400, 413),
// then the key (409), then the write's checks in the store.
func (s *Server) putLane(w http.ResponseWriter, r *http.Request, p auth.Principal, repo, sent, current string) error {
	req, err := s.readPut(w, r)
	if err != nil {
		return err
	}
	if err := keyMatches(sent, current); err != nil {
		return err
	}
	ifMatch, err := s.precondition(r.Context(), repo, readIfMatch(r.Header))
	if err != nil {
		return err
	}
	wr := store.Write{Repo: repo, IfMatch: ifMatch, Subject: p.Subject, Client: s.writeClient(r.Context(), p, r.Header),
		Lane: &store.LaneWrite{KeyID: sent, Quota: s.quota}}
	resp, err := s.commit(r.Context(), wr, req, "")
	if err != nil {
		return err
	}
	w.Header().Set("ETag", api.ETag(resp.Checksum))
	s.writeJSON(w, http.StatusOK, resp)
	return nil
}

// dropLane drops a whole lane and wakes the change waits on it.
func (s *Server) dropLane(w http.ResponseWriter, r *http.Request, subject, lane, sent, current string) error {
	if err := keyMatches(sent, current); err != nil {
		return err
	}
	err := s.personal.DropLane(r.Context(), subject, lane)
	if errors.Is(err, store.ErrNotFound) {
		return api.NewError(http.StatusNotFound, api.CodeNotFound, "no such lane")
	}
	if err != nil {
		return fmt.Errorf("drop lane: %w", err)
	}
	s.waker.Publish(store.PersonalRepo(subject, lane))
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// serveLanes lists the subject's lanes and its quota.
func (s *Server) serveLanes(w http.ResponseWriter, r *http.Request, p auth.Principal) error {
	current, err := s.currentKey(w, r, p.Subject)
	if err != nil {
		return err
	}
	lanes, err := s.personal.Lanes(r.Context(), p.Subject)
	if err != nil {
		return fmt.Errorf("list lanes: %w", err)
	}
	resp := api.LanesResponse{KeyID: current, Lanes: make([]api.LaneInfo, 0, len(lanes)),
		Quota: api.Quota{MaxBytes: s.quota.MaxBytes, MaxEntries: s.quota.MaxEntries}}
	for _, l := range lanes {
		resp.Lanes = append(resp.Lanes, api.LaneInfo{Lane: l.Lane, KeyID: l.KeyID, Entries: l.Entries, Bytes: l.Bytes,
			Version: l.Version, LastModified: l.LastModified.UTC()})
		resp.Quota.UsedEntries += l.Entries
		resp.Quota.UsedBytes += l.Bytes
	}
	s.writeJSON(w, http.StatusOK, resp)
	return nil
}

// laneError maps the store's lane write errors to the protocol; nil for
// any other error.
func laneError(err error) error {
	var quota *store.QuotaError
	switch {
	case errors.Is(err, store.ErrNoPersonalKey):
		return errNotInitialized()
	case errors.Is(err, store.ErrPersonalKeyChanged):
		return errKeyChanged()
	case errors.As(err, &quota):
		return api.NewError(http.StatusRequestEntityTooLarge, api.CodePersonalQuota,
			fmt.Sprintf("the personal lanes would hold %d entries and %d bytes, over the quota of %d entries and %d bytes; nothing was written",
				quota.Entries, quota.Bytes, quota.Quota.MaxEntries, quota.Quota.MaxBytes)).
			With("max_entries", quota.Quota.MaxEntries).With("max_bytes", quota.Quota.MaxBytes).
			With("entries", quota.Entries).With("bytes", quota.Bytes)
	}
	return nil
}

// wireRepo is the name a body gives repo: a lane's ID for a lane, else the
// repo's slug.
func wireRepo(repo string) string {
	if store.IsPersonalRepo(repo) {
		return store.LaneOf(repo)
	}
	return repo
}
