package memsync

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/hashicorp/go-retryablehttp"
	"golang.org/x/oauth2"

	"github.com/teammemd/teammemd/internal/savetrace"
	"github.com/teammemd/teammemd/server/api"
)

// Transport defaults.
const (
	// RequestTimeout bounds one attempt of an ordinary request.
	RequestTimeout = 30 * time.Second
	// waitMargin is added to a change wait's own duration for its timeout:
	// the server holds the request up to wait plus 10% jitter.
	waitMargin = 15 * time.Second
)

// retrying returns a retrying HTTP client for one request whose attempts
// time out after timeout and whose retries rt reports.
func (c *Client) retrying(timeout time.Duration, rt *retryReport) *retryablehttp.Client {
	return &retryablehttp.Client{
		HTTPClient:   &http.Client{Transport: c.transport, Timeout: timeout, CheckRedirect: checkRedirect},
		RetryWaitMin: c.waitMin,
		RetryWaitMax: c.waitMax,
		RetryMax:     c.retryMax,
		CheckRetry:   rt.check,
		Backoff:      rt.backoff,
		ErrorHandler: retryablehttp.PassthroughErrorHandler,
	}
}

// Host returns the server's host, which names per-server state.
func (c *Client) Host() string { return c.base.Host }

// Get fetches the full repo. With ifNoneMatch equal to the current checksum
// it returns modified=false (304). A repo never written is a 404 *api.Error.
func (c *Client) Get(ctx context.Context, repo, ifNoneMatch string) (api.FullResponse, bool, error) {
	var out api.FullResponse
	status, err := c.do(ctx, request{op: OpPull, repo: repo, method: http.MethodGet, url: c.query(repo, ""), ifNoneMatch: ifNoneMatch,
		maxBody: protocolLimits.FullBodyBytes()}, &out)
	if err != nil {
		return out, false, fmt.Errorf("pull %s: %w", repo, err)
	}
	return out, status != http.StatusNotModified, nil
}

// Hashes probes the repo's entry checksums without bodies.
func (c *Client) Hashes(ctx context.Context, repo string) (api.HashesResponse, error) {
	var out api.HashesResponse
	rq := request{op: OpProbe, repo: repo, method: http.MethodGet, url: c.query(repo, "0"), maxBody: protocolLimits.HashesBodyBytes()}
	if _, err := c.do(ctx, rq, &out); err != nil {
		return out, fmt.Errorf("probe %s: %w", repo, err)
	}
	return out, nil
}

// Wait holds a change-wait long poll (PROTOCOL.md section 3) for up to wait:
// it returns changed=true with the new hashes when the repo checksum differs
// from ifNoneMatch, and changed=false when the wait timed out (304).
func (c *Client) Wait(ctx context.Context, repo, ifNoneMatch string, wait time.Duration) (api.HashesResponse, bool, error) {
	return c.wait(ctx, repo, ifNoneMatch, wait, false)
}

// WaitChanges is Wait for a client that holds held, the whole hashes at
// held.Checksum: it asks for the keys changed since alone (PROTOCOL.md
// section 18) and returns the whole hashes they make of held. An answer
// relative to another checksum, one this client's own write made (section
// 19), is applied to what heldAt returns for it, when it returns any.
// When they do not make the answer's checksum, it returns the whole
// hashes of a probe instead. held is made ready for the answer (api.Held)
// before the wait is sent: the answer then costs what it names, not what
// the repo holds.
func (c *Client) WaitChanges(ctx context.Context, repo string, held api.HashesResponse, wait time.Duration, heldAt HeldAt) (api.HashesResponse, bool, error) {
	ready := api.NewHeld(held)
	h, changed, err := c.wait(ctx, repo, held.Checksum, wait, true)
	if err != nil || !changed {
		return h, changed, err
	}
	savetrace.Mark("wait.read", "")
	apply := ready.Apply
	if h.ChangedSince != "" && h.ChangedSince != held.Checksum && heldAt != nil {
		// The wait was carried past a write of this client's (WithInstance).
		if at, ok := heldAt(h.ChangedSince); ok {
			apply = func(h api.HashesResponse) (api.HashesResponse, error) { return h.Apply(at) }
		}
	}
	whole, err := apply(h)
	if err == nil {
		return whole, true, nil
	}
	if whole, err = c.Hashes(ctx, repo); err != nil {
		return whole, false, fmt.Errorf("wait for changes in %s: %w", repo, err)
	}
	return whole, whole.Checksum != held.Checksum, nil
}

// HeldAt returns the whole hashes at checksum the caller knows, and
// whether it knows them.
type HeldAt func(checksum string) (api.HashesResponse, bool)

// wait sends one change wait, asking for the changes since ifNoneMatch
// alone when delta.
func (c *Client) wait(ctx context.Context, repo, ifNoneMatch string, wait time.Duration, delta bool) (api.HashesResponse, bool, error) {
	var out api.HashesResponse
	secs := int(wait / time.Second)
	if secs < 1 {
		secs = 1
	}
	q := withWait(url.Values{api.ParamRepo: {repo}}, strconv.Itoa(secs))
	if delta {
		q.Set(api.ParamDelta, "1")
	}
	rq := request{
		op: OpWait, repo: repo, method: http.MethodGet, url: c.endpoint(api.Path, q),
		ifNoneMatch: ifNoneMatch, timeout: time.Duration(secs)*time.Second + waitMargin, maxBody: protocolLimits.WaitBodyBytes(),
	}
	if hctx, header := c.hints.ask(ctx); header != nil {
		ctx, rq.header, rq.hints = hctx, header, &c.hints
	}
	status, err := c.do(ctx, rq, &out)
	if err != nil {
		return out, false, fmt.Errorf("wait for changes in %s: %w", repo, err)
	}
	return out, status != http.StatusNotModified, nil
}

// Put sends one batch with If-Match ifMatch (none when empty). body must be
// the JSON encoding of a PutRequest (see encodePut).
func (c *Client) Put(ctx context.Context, repo, ifMatch string, body []byte) (api.PutResponse, error) {
	var out api.PutResponse
	rq := request{op: OpPush, repo: repo, method: http.MethodPut, url: c.query(repo, ""), ifMatch: ifMatch, body: body, maxBody: api.SmallBodyBytes}
	if _, err := c.do(ctx, rq, &out); err != nil {
		return out, fmt.Errorf("push %s: %w", repo, err)
	}
	return out, nil
}

// query builds the collection URL. wait "" is a full pull or push; "0" a
// hash probe; any other value a change wait of that many seconds.
func (c *Client) query(repo, wait string) string {
	return c.endpoint(api.Path, withWait(url.Values{api.ParamRepo: {repo}}, wait))
}

// withWait adds to q the view and wait that wait asks for, as query's.
func withWait(q url.Values, wait string) url.Values {
	if wait != "" {
		q.Set(api.ParamView, api.ViewHashes)
	}
	if wait != "" && wait != "0" {
		q.Set(api.ParamWait, wait)
	}
	return q
}

// endpoint is the URL of the server's route at path with query q.
func (c *Client) endpoint(path string, q url.Values) string {
	u := *c.base
	u.Path = c.base.Path + path
	u.RawQuery = q.Encode()
	return u.String()
}

// do sends one request with retries and decodes a 200 body into out. It
// returns the final status; 304 is not an error; other non-2xx answers are
// *api.Error values. An error names the request's operation for Classify.
func (c *Client) do(ctx context.Context, rq request, out any) (int, error) {
	status, err := c.send(ctx, rq, out)
	if err != nil {
		return status, &requestError{op: rq.op, err: err}
	}
	return status, nil
}

// send is do without naming the operation in the error.
func (c *Client) send(ctx context.Context, rq request, out any) (int, error) {
	timeout := rq.timeout
	if timeout <= 0 {
		timeout = RequestTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout*time.Duration(c.retryMax+1)+c.waitMax*time.Duration(c.retryMax))
	defer cancel()
	req, err := c.newRequest(ctx, rq)
	if err != nil {
		return 0, err
	}
	rt := &retryReport{log: c.log, trace: retryTraceFrom(ctx), op: rq.op, repo: rq.repo, attempts: c.retryMax + 1, hints: rq.hints}
	rc := c.retrying(timeout, rt)
	if rq.once {
		rc.RetryMax = 0
	}
	resp, err := rc.Do(req)
	if resp != nil {
		c.noteStoreID(resp.Header)
		if rq.answered != nil {
			rq.answered(resp.Header)
		}
	}
	if err != nil {
		if resp != nil {
			resp.Body.Close()
		}
		if schemeMismatch(err) {
			return 0, c.notServer(schemeMismatchReason)
		}
		return 0, fmt.Errorf("%s %s: %w", rq.method, api.Path, err)
	}
	defer resp.Body.Close()
	return resp.StatusCode, c.decodeResponse(resp, rq, out)
}

// noteStoreID records the store identity a response names; a response
// naming none, or a malformed one, changes nothing.
func (c *Client) noteStoreID(h http.Header) {
	if id := h.Get(api.StoreIDHeader); api.ValidStoreID(id) {
		c.storeID.Store(&id)
	}
}

// StoreID returns the identity of the server's database as the last
// response that named one did, "" before any did. It changes when the
// database was restored from a backup or replaced.
func (c *Client) StoreID() string {
	if p := c.storeID.Load(); p != nil {
		return *p
	}
	return ""
}

// newRequest builds rq with its credentials and preconditions.
func (c *Client) newRequest(ctx context.Context, rq request) (*retryablehttp.Request, error) {
	var raw any
	if rq.body != nil {
		raw = rq.body
	}
	req, err := retryablehttp.NewRequestWithContext(ctx, rq.method, rq.url, raw)
	if err != nil {
		return nil, fmt.Errorf("build request: %w", err)
	}
	if err := c.authorize(ctx, req); err != nil {
		return nil, err
	}
	if rq.ifNoneMatch != "" {
		req.Header.Set("If-None-Match", api.ETag(rq.ifNoneMatch))
	}
	if rq.ifMatch != "" {
		req.Header.Set("If-Match", api.ETag(rq.ifMatch))
	}
	if rq.body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range rq.header {
		req.Header[k] = v
	}
	return req, nil
}

// contextTokenSource is a token source whose Token may wait (for another
// process's refresh of a login) and so takes the request's context.
type contextTokenSource interface {
	TokenContext(ctx context.Context) (*oauth2.Token, error)
}

// token gets the credential of a request made under ctx.
func (c *Client) token(ctx context.Context) (*oauth2.Token, error) {
	if ts, ok := c.ts.(contextTokenSource); ok {
		return ts.TokenContext(ctx)
	}
	return c.ts.Token()
}

func (c *Client) authorize(ctx context.Context, req *retryablehttp.Request) error {
	tok, err := c.token(ctx)
	if err != nil {
		return fmt.Errorf("get token: %w", err)
	}
	tok.SetAuthHeader(req.Request)
	req.Header.Set("User-Agent", c.userAgent)
	if c.machine != "" {
		req.Header.Set(api.HeaderClient, c.machine)
	}
	if c.instance != "" {
		req.Header.Set(api.HeaderInstance, c.instance)
	}
	req.Header.Set("Accept", "application/json")
	return nil
}
