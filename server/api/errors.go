package api

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// Error codes carried in details.error_code of the error envelope.
const (
	CodeInvalidRequest  = "invalid_request"
	CodeInvalidKey      = "invalid_key"
	CodeUnauthenticated = "unauthenticated"
	CodeACLDenied       = "team_memory_group_acl_denied"
	CodeNotFound        = "team_memory_not_found"
	CodePrecondition    = "precondition_failed"
	CodeTooManyEntries  = "team_memory_too_many_entries"
	CodeEntryTooLarge   = "team_memory_entry_too_large"
	CodeBodyTooLarge    = "request_too_large"
	CodeSecretDetected  = "secret_detected"
	CodeRateLimited     = "rate_limited"
	CodeInternal        = "internal_error"
	CodeUnavailable     = "unavailable"
	// CodeStorageFull is the code of a 507 (extension): the server's
	// storage is full and the write was not made (StorageFull).
	CodeStorageFull = "storage_full"
)

// Error kinds carried in error.type of the envelope.
const (
	KindInvalidRequest = "invalid_request_error"
	KindAuthentication = "authentication_error"
	KindPermission     = "permission_error"
	KindNotFound       = "not_found_error"
	KindPrecondition   = "precondition_failed_error"
	KindTooLarge       = "request_too_large"
	KindSecret         = "secret_detected_error"
	KindRateLimit      = "rate_limit_error"
	KindAPI            = "api_error"
	KindOverloaded     = "overloaded_error"
)

// ErrorEnvelope is the one error body every non-2xx answer carries.
type ErrorEnvelope struct {
	Type  string    `json:"type"`
	Error ErrorBody `json:"error"`
}

// ErrorBody is the "error" object of the envelope.
type ErrorBody struct {
	Type    string         `json:"type"`
	Message string         `json:"message"`
	Details map[string]any `json:"details"`
}

// Error is a protocol error: an HTTP status and the envelope it is sent with.
// Its message must never hold a secret, a token or an entry body.
type Error struct {
	Status  int
	Kind    string
	Code    string
	Message string
	// Details holds extra fields of details besides error_code.
	Details map[string]any
}

// Error implements error.
func (e *Error) Error() string {
	return fmt.Sprintf("%d %s: %s", e.Status, e.Code, e.Message)
}

// Envelope returns the wire form of e.
func (e *Error) Envelope() ErrorEnvelope {
	d := make(map[string]any, len(e.Details)+1)
	for k, v := range e.Details {
		d[k] = v
	}
	d["error_code"] = e.Code
	return ErrorEnvelope{Type: "error", Error: ErrorBody{Type: e.Kind, Message: e.Message, Details: d}}
}

// StorageFull is the answer to a write the server's store refused because
// its storage is full: 507 Insufficient Storage (extension). Nothing of
// the write was stored; the same write succeeds once there is room, so a
// client keeps it and sends it again later, as after any 5xx.
func StorageFull() *Error {
	return NewError(http.StatusInsufficientStorage, CodeStorageFull,
		"the server's storage is full, so nothing was written; the write succeeds once the server's operator has made room")
}

// NewError returns a protocol error with the kind that matches status.
func NewError(status int, code, message string) *Error {
	return &Error{Status: status, Kind: kindFor(status), Code: code, Message: message}
}

// With returns e with details key set to v.
// ReasonOwnProposal is the details.reason of the 403 a reviewer gets for
// approving their own proposal (PROTOCOL.md section 14): no grant allows
// it, so a client asks for none.
const ReasonOwnProposal = "own_proposal"

// Reason is details.reason, which says why a refusal is not the usual one
// of its code, "" when it has none.
func (e *Error) Reason() string {
	r, _ := e.Details["reason"].(string)
	return r
}

func (e *Error) With(key string, v any) *Error {
	if e.Details == nil {
		e.Details = map[string]any{}
	}
	e.Details[key] = v
	return e
}

func kindFor(status int) string {
	switch status {
	case http.StatusBadRequest:
		return KindInvalidRequest
	case http.StatusUnauthorized:
		return KindAuthentication
	case http.StatusForbidden:
		return KindPermission
	case http.StatusNotFound:
		return KindNotFound
	case http.StatusPreconditionFailed:
		return KindPrecondition
	case http.StatusRequestEntityTooLarge:
		return KindTooLarge
	case http.StatusUnprocessableEntity:
		return KindSecret
	case http.StatusTooManyRequests:
		return KindRateLimit
	case http.StatusServiceUnavailable:
		return KindOverloaded
	default:
		return KindAPI
	}
}

// ParseError decodes an error envelope received with status. A body that is
// not an envelope still yields an Error carrying the status, so callers can
// always branch on Status and Code.
func ParseError(status int, body []byte) *Error {
	var env ErrorEnvelope
	if err := json.Unmarshal(body, &env); err != nil || env.Type != "error" {
		return &Error{Status: status, Kind: kindFor(status), Message: http.StatusText(status)}
	}
	e := &Error{Status: status, Kind: env.Error.Type, Message: env.Error.Message}
	for k, v := range env.Error.Details {
		if k == "error_code" {
			e.Code, _ = v.(string)
			continue
		}
		e.With(k, v)
	}
	return e
}

// IntDetail returns details[key] as an int when it is a JSON number.
func (e *Error) IntDetail(key string) (int, bool) {
	switch v := e.Details[key].(type) {
	case float64:
		return int(v), true
	case int:
		return v, true
	case json.Number:
		n, err := v.Int64()
		return int(n), err == nil
	}
	return 0, false
}
