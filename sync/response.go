package memsync

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"github.com/teammemd/teammemd/server/api"
)

// protocolLimits are the limits of PROTOCOL.md section 5 the client holds
// a server's answers to: a body larger than they allow is refused before
// it is held.
var protocolLimits = api.DefaultLimits()

// decodeResponse decodes a 2xx body into out, or returns the error a
// non-2xx answer carries; an answer no teammemd server gives, a body over
// what the protocol allows for rq among them, is a *NotServerError.
func (c *Client) decodeResponse(resp *http.Response, rq request, out any) error {
	switch {
	case resp.StatusCode == http.StatusNotModified:
		return nil
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		return c.decodeError(resp)
	case out == nil:
		return nil
	}
	data, over, err := readBounded(resp, rq.maxBody)
	if err != nil {
		return err
	}
	if over {
		return c.notServer(fmt.Sprintf("its answer to a %s request is over %d bytes, more than the protocol allows", rq.op, rq.maxBody))
	}
	if err := json.NewDecoder(bytes.NewReader(data)).Decode(out); err != nil {
		return c.notServer(fmt.Sprintf("HTTP %d with %s that is not the protocol's JSON (%v)", resp.StatusCode, bodyKind(resp, data), err))
	}
	return c.checkBody(resp, data, out)
}

// decodeError returns the error a non-2xx answer carries (answerError).
// Its body is read up to the size of the protocol's error: a longer one is
// no teammemd server's error, and the answer is judged by its status
// alone.
func (c *Client) decodeError(resp *http.Response) error {
	data, over, err := readBounded(resp, api.SmallBodyBytes)
	if err != nil {
		return err
	}
	if over {
		data = nil
	}
	if err := c.foreignError(resp, data); err != nil {
		if over {
			return c.notServer(fmt.Sprintf("HTTP %d with an error body over %d bytes, more than the protocol allows", resp.StatusCode, api.SmallBodyBytes))
		}
		return err
	}
	return answerError(api.ParseError(resp.StatusCode, data))
}

// readBounded reads resp's body up to max bytes and one more, and reports
// whether it holds more than max, without reading further than that.
func readBounded(resp *http.Response, max int64) ([]byte, bool, error) {
	if resp.ContentLength > max {
		return nil, true, nil
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, max+1))
	if err != nil {
		return nil, false, fmt.Errorf("read response: %w", err)
	}
	return data, int64(len(data)) > max, nil
}
