package memsync

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/teammemd/teammemd/server/api"
)

// The personal lane's routes (PROTOCOL.md section 16). Every call records
// the key ID the answer names (PersonalKeyID); the lane calls send the key
// ID the caller encrypts with.

// opPersonalKey names the key routes' requests in retry reports.
const opPersonalKey = "personal key"

// PersonalKeyID returns the key ID the last answer of a personal lane route
// named as the subject's current key, "" before any did.
func (c *Client) PersonalKeyID() string {
	if p := c.personalKey.Load(); p != nil {
		return *p
	}
	return ""
}

// notePersonalKey records the key ID an answer names.
func (c *Client) notePersonalKey(h http.Header) {
	if id := h.Get(api.PersonalKeyHeader); api.ValidKeyID(id) {
		c.personalKey.Store(&id)
	}
}

// PersonalKey fetches the subject's wrapped key. With none stored it
// returns a 404 *api.Error with code api.CodePersonalNotInitialized.
func (c *Client) PersonalKey(ctx context.Context) (api.KeyEnvelope, error) {
	var out api.KeyEnvelope
	rq := request{op: OpPull, repo: opPersonalKey, method: http.MethodGet, url: c.endpoint(api.PersonalKeyPath, nil),
		maxBody: api.SmallBodyBytes, answered: c.notePersonalKey}
	if _, err := c.do(ctx, rq, &out); err != nil {
		return out, fmt.Errorf("read the personal key: %w", err)
	}
	return out, nil
}

// PutPersonalKey stores env as the subject's key: created when
// ifMatchKeyID is "" (If-None-Match: *), else replacing the key whose ID it
// is (If-Match). Either precondition failing is a 412 *api.Error.
func (c *Client) PutPersonalKey(ctx context.Context, env api.KeyEnvelope, ifMatchKeyID string) (api.KeyEnvelope, error) {
	var out api.KeyEnvelope
	body, err := json.Marshal(env)
	if err != nil {
		return out, fmt.Errorf("encode the personal key: %w", err)
	}
	rq := request{op: OpPush, repo: opPersonalKey, method: http.MethodPut, url: c.endpoint(api.PersonalKeyPath, nil),
		ifMatch: ifMatchKeyID, body: body, maxBody: api.SmallBodyBytes, answered: c.notePersonalKey}
	if ifMatchKeyID == "" {
		rq.header = http.Header{"If-None-Match": {"*"}}
	}
	if _, err := c.do(ctx, rq, &out); err != nil {
		return out, fmt.Errorf("store the personal key: %w", err)
	}
	return out, nil
}

// PersonalLanes lists the subject's lanes, the key each was written with,
// and the quota.
func (c *Client) PersonalLanes(ctx context.Context) (api.LanesResponse, error) {
	var out api.LanesResponse
	rq := request{op: OpPull, repo: opPersonalKey, method: http.MethodGet, url: c.endpoint(api.PersonalLanesPath, nil),
		maxBody: protocolLimits.HashesBodyBytes(), answered: c.notePersonalKey}
	if _, err := c.do(ctx, rq, &out); err != nil {
		return out, fmt.Errorf("list the personal lanes: %w", err)
	}
	return out, nil
}

// PersonalGet fetches a lane in full, as Get does a repo.
func (c *Client) PersonalGet(ctx context.Context, lane, keyID, ifNoneMatch string) (api.FullResponse, bool, error) {
	var out api.FullResponse
	rq := c.laneRequest(OpPull, http.MethodGet, lane, keyID, "")
	rq.ifNoneMatch, rq.maxBody = ifNoneMatch, protocolLimits.FullBodyBytes()
	status, err := c.do(ctx, rq, &out)
	if err != nil {
		return out, false, fmt.Errorf("pull personal lane %s: %w", lane, err)
	}
	return out, status != http.StatusNotModified, nil
}

// PersonalHashes probes a lane's entry checksums, as Hashes does a repo's.
func (c *Client) PersonalHashes(ctx context.Context, lane, keyID string) (api.HashesResponse, error) {
	var out api.HashesResponse
	rq := c.laneRequest(OpProbe, http.MethodGet, lane, keyID, "0")
	rq.maxBody = protocolLimits.HashesBodyBytes()
	if _, err := c.do(ctx, rq, &out); err != nil {
		return out, fmt.Errorf("probe personal lane %s: %w", lane, err)
	}
	return out, nil
}

// PersonalWait holds a change wait on a lane, as Wait does on a repo.
func (c *Client) PersonalWait(ctx context.Context, lane, keyID, ifNoneMatch string, wait time.Duration) (api.HashesResponse, bool, error) {
	var out api.HashesResponse
	secs := max(int(wait/time.Second), 1)
	rq := c.laneRequest(OpWait, http.MethodGet, lane, keyID, strconv.Itoa(secs))
	rq.ifNoneMatch, rq.maxBody = ifNoneMatch, protocolLimits.HashesBodyBytes()
	rq.timeout = time.Duration(secs)*time.Second + waitMargin
	status, err := c.do(ctx, rq, &out)
	if err != nil {
		return out, false, fmt.Errorf("wait for changes in personal lane %s: %w", lane, err)
	}
	return out, status != http.StatusNotModified, nil
}

// PersonalPut sends one batch to a lane, as Put does to a repo. A key ID
// that is not the subject's current one is a 409 *api.Error with code
// api.CodePersonalKeyChanged, and nothing is written.
func (c *Client) PersonalPut(ctx context.Context, lane, keyID, ifMatch string, body []byte) (api.PutResponse, error) {
	var out api.PutResponse
	rq := c.laneRequest(OpPush, http.MethodPut, lane, keyID, "")
	rq.ifMatch, rq.body, rq.maxBody = ifMatch, body, api.SmallBodyBytes
	if _, err := c.do(ctx, rq, &out); err != nil {
		return out, fmt.Errorf("push personal lane %s: %w", lane, err)
	}
	return out, nil
}

// DeletePersonalLane drops a lane with its entries, tombstones and
// history. A lane the server does not hold is a 404 *api.Error.
func (c *Client) DeletePersonalLane(ctx context.Context, lane, keyID string) error {
	rq := c.laneRequest(OpPush, http.MethodDelete, lane, keyID, "")
	rq.maxBody = api.SmallBodyBytes
	if _, err := c.do(ctx, rq, nil); err != nil {
		return fmt.Errorf("delete personal lane %s: %w", lane, err)
	}
	return nil
}

// laneRequest is a request of op on lane's collection route; wait is as
// query's.
func (c *Client) laneRequest(op, method, lane, keyID, wait string) request {
	q := withWait(url.Values{api.ParamLane: {lane}}, wait)
	return request{op: op, repo: lane, method: method, url: c.endpoint(api.PersonalPath, q),
		header: http.Header{api.PersonalKeyHeader: {keyID}}, answered: c.notePersonalKey}
}
