package server

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/auth"
	"github.com/teammemd/teammemd/server/store"
)

// put applies an upsert-merge. Checks run in the protocol's order: the body's
// form (400, 413), access (403), the secret scan (422), then the store's
// precondition (412) and entry count (413), all atomically.
func (s *Server) put(w http.ResponseWriter, r *http.Request, p auth.Principal, repo string) error {
	req, err := s.readPut(w, r)
	if err != nil {
		return err
	}
	if !p.Allows(repo, store.LevelWrite) {
		return denied(p, repo, store.LevelWrite)
	}
	if err := s.scan(r, req.Entries); err != nil {
		return err
	}
	ifMatch := firstETag(r.Header.Get("If-Match"))
	if ifMatch == "*" {
		ifMatch = ""
	}
	now := s.now().UTC()
	res, err := s.store.Apply(r.Context(), store.Write{
		Repo: repo, IfMatch: ifMatch, Entries: req.Entries, Deletes: req.SoftDeleteKeys,
		Subject: p.Subject, Time: now, MaxEntries: s.limits.MaxEntries,
	})
	if err != nil {
		return applyError(repo, err)
	}
	if len(res.Changed) > 0 {
		s.waker.Publish(repo)
	}
	w.Header().Set("ETag", api.ETag(res.Checksum))
	s.writeJSON(w, http.StatusOK, api.PutResponse{
		OrganizationID: s.org, Repo: repo, Version: res.Version,
		LastModified: lastModified(res, now), Checksum: res.Checksum,
	})
	return nil
}

// lastModified is the repo's last write time, or now for a PUT that changed
// nothing on a repo never written, which has no write time to report.
func lastModified(res store.Result, now time.Time) time.Time {
	if res.LastModified.IsZero() {
		return now
	}
	return res.LastModified.UTC()
}

// readPut reads the body within the body cap and decodes it.
func (s *Server) readPut(w http.ResponseWriter, r *http.Request) (api.PutRequest, error) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.limits.MaxBodyBytes))
	s.metrics.putBytes.Add(float64(len(body)))
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return api.PutRequest{}, api.NewError(http.StatusRequestEntityTooLarge, api.CodeBodyTooLarge,
			fmt.Sprintf("request body is over the %d byte limit", tooBig.Limit)).With("max_bytes", tooBig.Limit)
	}
	if err != nil {
		return api.PutRequest{}, api.NewError(http.StatusBadRequest, api.CodeInvalidRequest, "cannot read request body")
	}
	req, err := api.DecodePut(body, s.limits)
	if err != nil {
		return api.PutRequest{}, err
	}
	return req, nil
}

// scan refuses values that hold a secret. The answer names the rules that
// matched, never what they matched.
func (s *Server) scan(r *http.Request, entries map[string]string) error {
	if s.scanner == nil || len(entries) == 0 {
		return nil
	}
	ids, err := s.scanner.ScanEntries(r.Context(), entries)
	if err != nil {
		return fmt.Errorf("scan entries: %w", err)
	}
	if len(ids) == 0 {
		return nil
	}
	s.metrics.secrets.Inc()
	return api.NewError(http.StatusUnprocessableEntity, api.CodeSecretDetected,
		"an entry value looks like it holds a secret; nothing was stored").With("rule_ids", ids)
}

// applyError maps a store error of Apply to the protocol.
func applyError(repo string, err error) error {
	var tooMany *store.TooManyEntriesError
	switch {
	case errors.Is(err, store.ErrPrecondition):
		return api.NewError(http.StatusPreconditionFailed, api.CodePrecondition,
			"If-Match does not equal the repo's current checksum; nothing was written")
	case errors.As(err, &tooMany):
		return api.NewError(http.StatusRequestEntityTooLarge, api.CodeTooManyEntries,
			fmt.Sprintf("the repo would hold %d entries, over the limit of %d; nothing was written", tooMany.Received, tooMany.Max)).
			With("max_entries", tooMany.Max).With("received_entries", tooMany.Received)
	default:
		return fmt.Errorf("apply to %s: %w", repo, err)
	}
}
