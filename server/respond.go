package server

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"net/http"
	"strconv"
	"time"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/store"
)

// writeJSON sends v as the JSON body with status.
func (s *Server) writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		s.writeEncodeError(w, err)
		return
	}
	s.writeRaw(w, status, body)
}

// writeEncodeError answers 500 for a body that could not be encoded.
func (s *Server) writeEncodeError(w http.ResponseWriter, err error) {
	s.log.Error("encode response", "err", err)
	http.Error(w, `{"type":"error","error":{"type":"api_error","message":"encode response","details":{"error_code":"internal_error"}}}`, http.StatusInternalServerError)
}

// writeRaw sends an encoded JSON body with status.
func (s *Server) writeRaw(w http.ResponseWriter, status int, body []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// writeError sends err as the error envelope. An *api.Error goes out as it
// is; a write the store refused because its storage is full is logged and
// answered 507 (refuseFull); anything else is logged and answered 500 with
// a generic message, so no internal detail reaches the client.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	s.sendError(r.Context(), w, err)
}

// sendError is writeError for the request of ctx.
func (s *Server) sendError(ctx context.Context, w http.ResponseWriter, err error) {
	var apiErr *api.Error
	if !errors.As(err, &apiErr) {
		switch {
		case ctx.Err() != nil && errors.Is(err, context.Canceled):
			// The client went away; nobody reads the answer.
			apiErr = api.NewError(http.StatusServiceUnavailable, api.CodeUnavailable, "request canceled")
		case errors.Is(err, store.ErrFull):
			apiErr = s.refuseFull(ctx, err)
		default:
			s.log.ErrorContext(ctx, "request failed", "route", infoFrom(ctx).route, "err", err)
			apiErr = api.NewError(http.StatusInternalServerError, api.CodeInternal, "internal server error")
		}
	}
	if apiErr.Status == http.StatusUnauthorized && w.Header().Get("WWW-Authenticate") == "" {
		w.Header().Set("WWW-Authenticate", `Bearer realm="teammemd"`)
	}
	s.writeJSON(w, apiErr.Status, s.redactKey(ctx, apiErr).Envelope())
}

// redactKey returns e with details.key redacted when the key's name holds
// a secret, so that no answer echoes one: a key refused before the scan,
// as invalid or too large, is checked here. When the check cannot run, the
// key is redacted.
func (s *Server) redactKey(ctx context.Context, e *api.Error) *api.Error {
	key, ok := e.Details["key"].(string)
	if !ok || s.scanner == nil {
		return e
	}
	names, err := s.scanner.ScanKeys(context.WithoutCancel(ctx), []string{key})
	if err == nil && len(names) == 0 {
		return e
	}
	out := *e
	out.Details = maps.Clone(e.Details)
	out.Details["key"] = api.RedactKey(key)
	return &out
}

// unavailable is a 503 that asks the client to come back after retry.
func unavailable(w http.ResponseWriter, message string, retry time.Duration) *api.Error {
	setRetryAfter(w, retry)
	return api.NewError(http.StatusServiceUnavailable, api.CodeUnavailable, message)
}

// setRetryAfter sets Retry-After to d rounded up to whole seconds, at least 1.
func setRetryAfter(w http.ResponseWriter, d time.Duration) {
	secs := int64((d + time.Second - 1) / time.Second)
	if secs < 1 {
		secs = 1
	}
	w.Header().Set("Retry-After", strconv.FormatInt(secs, 10))
}

// notModified answers 304 with the strong ETag of checksum.
func notModified(w http.ResponseWriter, checksum string) {
	w.Header().Set("ETag", api.ETag(checksum))
	w.WriteHeader(http.StatusNotModified)
}
