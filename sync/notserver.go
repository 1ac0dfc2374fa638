package memsync

import (
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strings"

	"github.com/teammemd/teammemd/server/api"
)

// NotServerError is the error of a request whose answer no teammemd server
// gives: a page or a 404 from another web server, a 501, a JSON body
// without the protocol's fields, or plain HTTP where https:// was asked
// for. Retrying cannot fix it; the server URL must change.
type NotServerError struct {
	// URL is the configured base URL.
	URL string
	// Reason says what came back instead.
	Reason string
}

func (e *NotServerError) Error() string {
	return fmt.Sprintf("the server at %s does not answer as a teammemd server: %s; "+
		"check the server URL (it should be the base URL, without a path)", e.URL, e.Reason)
}

// schemeMismatchReason is the reason for an https:// URL that a plain-HTTP
// server answered.
const schemeMismatchReason = "it answered an HTTPS request with plain HTTP (use http://, or put TLS in front of the server)"

// notServer returns a *NotServerError for URL with reason.
func (c *Client) notServer(reason string) *NotServerError {
	return &NotServerError{URL: c.base.String(), Reason: reason}
}

// foreignError returns a *NotServerError when a non-2xx answer is not one
// a teammemd server gives, and nil otherwise. A 5xx other than 501 and a
// 429 are left alone even without the protocol's body: a proxy in front
// of a teammemd server that is down answers so.
func (c *Client) foreignError(resp *http.Response, data []byte) error {
	status := resp.StatusCode
	if status == http.StatusTooManyRequests || (status >= 500 && status != http.StatusNotImplemented) {
		return nil
	}
	var env api.ErrorEnvelope
	if err := json.Unmarshal(data, &env); err != nil || env.Type != "error" {
		return c.notServer(fmt.Sprintf("HTTP %d %s with %s instead of the protocol's JSON error",
			status, http.StatusText(status), bodyKind(resp, data)))
	}
	if code, _ := env.Error.Details["error_code"].(string); status == http.StatusNotFound && !notFoundCodes[code] {
		return c.notServer(fmt.Sprintf("HTTP 404 (%s) for %s", api.Printable(env.Error.Message), api.Path))
	}
	return nil
}

// notFoundCodes are the error codes of a 404 a teammemd server gives: a
// repo never written, a proposal id no proposal has, and the personal
// lane's.
var notFoundCodes = map[string]bool{
	api.CodeNotFound: true, api.CodeProposalNotFound: true,
	api.CodePersonalNotInitialized: true, api.CodePersonalDisabled: true,
}

// checkBody returns a *NotServerError when a decoded 2xx body lacks the
// repo checksum every teammemd answer carries.
func (c *Client) checkBody(resp *http.Response, data []byte, out any) error {
	var sum string
	switch v := out.(type) {
	case *api.FullResponse:
		sum = v.Checksum
	case *api.HashesResponse:
		sum = v.Checksum
	case *api.PutResponse:
		sum = v.Checksum
	default:
		return nil
	}
	if !strings.HasPrefix(sum, "sha256:") {
		return c.notServer(fmt.Sprintf("HTTP %d with %s without the protocol's repo checksum", resp.StatusCode, bodyKind(resp, data)))
	}
	return nil
}

// bodyKind names what a body holds, by its media type, for a reason.
func bodyKind(resp *http.Response, data []byte) string {
	if len(data) == 0 {
		return "an empty body"
	}
	mt, _, err := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if err != nil || mt == "" {
		return "a body of no stated type"
	}
	return "a " + api.Printable(mt) + " body"
}

// schemeMismatch reports whether err is an https:// request answered with
// plain HTTP.
func schemeMismatch(err error) bool { return errors.Is(err, http.ErrSchemeMismatch) }
