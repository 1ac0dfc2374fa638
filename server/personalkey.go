package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/auth"
	"github.com/teammemd/teammemd/server/store"
)

// maxKeyBodyBytes bounds the body of a PUT on the key: the envelope and its
// JSON around it.
const maxKeyBodyBytes = 2 * api.MaxEnvelopeBytes

// servePersonalKey answers GET and PUT on the subject's wrapped key.
func (s *Server) servePersonalKey(w http.ResponseWriter, r *http.Request, p auth.Principal) error {
	if r.Method == http.MethodPut {
		return s.putPersonalKey(w, r, p)
	}
	k, err := s.personal.PersonalKey(r.Context(), p.Subject)
	if errors.Is(err, store.ErrNoPersonalKey) {
		return api.NewError(http.StatusNotFound, api.CodePersonalNotInitialized,
			"the personal lane has no key yet: run `teammemd personal init`")
	}
	if err != nil {
		return fmt.Errorf("read personal key: %w", err)
	}
	s.writeKey(w, k)
	return nil
}

// writeKey answers 200 with k, its ETag and key header.
func (s *Server) writeKey(w http.ResponseWriter, k store.PersonalKey) {
	w.Header().Set(api.PersonalKeyHeader, k.KeyID)
	w.Header().Set("ETag", api.ETag(k.KeyID))
	s.writeJSON(w, http.StatusOK, api.KeyEnvelope{KeyID: k.KeyID, Envelope: k.Envelope, UpdatedAt: k.UpdatedAt.UTC()})
}

// putPersonalKey stores the subject's key: created with If-None-Match: *,
// replaced with If-Match: "<current keyId>". Lanes are left as they are.
func (s *Server) putPersonalKey(w http.ResponseWriter, r *http.Request, p auth.Principal) error {
	ifMatch, err := keyPrecondition(r.Header)
	if err != nil {
		return err
	}
	env, err := readEnvelope(w, r)
	if err != nil {
		return err
	}
	k, err := s.personal.PutPersonalKey(r.Context(), store.PersonalKey{Subject: p.Subject, KeyID: env.KeyID,
		Envelope: env.Envelope, UpdatedAt: s.now()}, ifMatch)
	if errors.Is(err, store.ErrPrecondition) {
		if _, kerr := s.currentKey(w, r, p.Subject); kerr != nil {
			return kerr
		}
		return api.NewError(http.StatusPreconditionFailed, api.CodePrecondition,
			"the subject's key is not the one the precondition names; nothing was written")
	}
	if err != nil {
		return fmt.Errorf("write personal key: %w", err)
	}
	s.writeKey(w, k)
	return nil
}

// keyPrecondition reads the precondition a PUT on the key needs: ""
// to create (If-None-Match: *), else the key ID to replace (If-Match).
func keyPrecondition(h http.Header) (string, error) {
	inm, im := h.Get("If-None-Match"), h.Get("If-Match")
	switch {
	case inm != "" && im != "":
		return "", api.NewError(http.StatusBadRequest, api.CodeInvalidRequest, "send If-None-Match or If-Match, not both")
	case inm != "":
		if firstETag(inm) != "*" {
			return "", api.NewError(http.StatusBadRequest, api.CodeInvalidRequest, "If-None-Match on the key must be *")
		}
		return "", nil
	case im != "":
		id := firstETag(im)
		if !api.ValidKeyID(id) {
			return "", api.NewError(http.StatusBadRequest, api.CodeInvalidRequest, "If-Match on the key must name a key ID")
		}
		return id, nil
	}
	return "", api.NewError(http.StatusPreconditionRequired, api.CodePrecondition,
		"a PUT on the key needs If-None-Match: * to create it or If-Match: \"<keyId>\" to replace it")
}

// readEnvelope decodes and checks the body of a PUT on the key.
func readEnvelope(w http.ResponseWriter, r *http.Request) (api.KeyEnvelope, error) {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxKeyBodyBytes))
	dec.DisallowUnknownFields()
	var env api.KeyEnvelope
	var tooBig *http.MaxBytesError
	if err := dec.Decode(&env); errors.As(err, &tooBig) {
		return api.KeyEnvelope{}, api.NewError(http.StatusRequestEntityTooLarge, api.CodeBodyTooLarge,
			fmt.Sprintf("request body is over the %d byte limit", tooBig.Limit))
	} else if err != nil {
		return api.KeyEnvelope{}, api.NewError(http.StatusBadRequest, api.CodeInvalidRequest, "body must be a key envelope: "+err.Error())
	}
	switch {
	case !api.ValidKeyID(env.KeyID):
		return api.KeyEnvelope{}, api.NewError(http.StatusBadRequest, api.CodeInvalidRequest,
			fmt.Sprintf("keyId must be %d lowercase hex digits", api.KeyIDBytes))
	case env.Envelope == "" || len(env.Envelope) > api.MaxEnvelopeBytes || !asciiText(env.Envelope):
		return api.KeyEnvelope{}, api.NewError(http.StatusBadRequest, api.CodeInvalidRequest,
			fmt.Sprintf("envelope must be ASCII armor of 1 to %d bytes", api.MaxEnvelopeBytes))
	}
	return env, nil
}

// asciiText reports whether s is printable ASCII and line breaks.
func asciiText(s string) bool {
	return !strings.ContainsFunc(s, func(c rune) bool {
		return (c < 0x20 || c > 0x7e) && c != '\n' && c != '\r' && c != '\t'
	})
}

// keyHeaderWriter names the subject's key as it is when a change wait
// answers, which may be later than when the wait began.
type keyHeaderWriter struct {
	http.ResponseWriter
	s       *Server
	r       *http.Request
	subject string
	done    bool
}

func (w *keyHeaderWriter) WriteHeader(code int) {
	if !w.done {
		w.done = true
		if k, err := w.s.personal.PersonalKey(w.r.Context(), w.subject); err == nil {
			w.Header().Set(api.PersonalKeyHeader, k.KeyID)
		} else if errors.Is(err, store.ErrNoPersonalKey) {
			w.Header().Del(api.PersonalKeyHeader)
		}
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *keyHeaderWriter) Write(b []byte) (int, error) {
	if !w.done {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}

func (w *keyHeaderWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
