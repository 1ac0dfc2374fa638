package auth

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"
)

// UpstreamTimeout bounds one call to an OIDC provider, GitHub or claude.ai
// when Options.HTTPClient is not set.
const UpstreamTimeout = 10 * time.Second

// maxUpstreamBody bounds an answer read from an upstream service.
const maxUpstreamBody = 1 << 20

// upstreamAnswer is the status and headers of an upstream GET.
type upstreamAnswer struct {
	status int
	header http.Header
}

// upstream calls the identity services (the OIDC provider, GitHub,
// claude.ai) with at most a fixed number of calls in flight, however many
// credentials arrive at once: a call past it waits for a slot, up to
// UpstreamTimeout, and is then answered unavailable, so the client retries.
type upstream struct {
	client *http.Client
	slots  chan struct{}
}

func newUpstream(client *http.Client, inFlight int) *upstream {
	return &upstream{client: client, slots: make(chan struct{}, inFlight)}
}

// acquire takes a slot, waiting up to UpstreamTimeout, and returns the
// function that gives it back.
func (u *upstream) acquire(ctx context.Context, mode string) (func(), error) {
	ctx, cancel := context.WithTimeout(ctx, UpstreamTimeout)
	defer cancel()
	select {
	case u.slots <- struct{}{}:
		return func() { <-u.slots }, nil
	case <-ctx.Done():
		return nil, unavailable(mode, "%d calls to the identity services are in flight and none ended within %s", cap(u.slots), UpstreamTimeout)
	}
}

// getJSON GETs url with the bearer (none when empty) and extra headers, and
// decodes a 200 body
// into out. A failure to reach the service, or a 200 it cannot decode, is an
// *UnavailableError; other statuses are returned for the caller to judge.
// Neither the bearer nor the body ever reaches an error.
func (u *upstream) getJSON(ctx context.Context, mode, url, bearer string, header map[string]string, out any) (upstreamAnswer, error) {
	release, err := u.acquire(ctx, mode)
	if err != nil {
		return upstreamAnswer{}, err
	}
	defer release()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return upstreamAnswer{}, fmt.Errorf("%s: build request: %w", mode, err)
	}
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	req.Header.Set("Accept", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := u.client.Do(req)
	if err != nil {
		return upstreamAnswer{}, unavailable(mode, "%w", err)
	}
	defer resp.Body.Close()
	ans := upstreamAnswer{status: resp.StatusCode, header: resp.Header}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxUpstreamBody))
	if err != nil {
		return ans, unavailable(mode, "read answer of %s: %w", req.URL.Redacted(), err)
	}
	if resp.StatusCode != http.StatusOK {
		return ans, nil
	}
	if err := json.Unmarshal(body, out); err != nil {
		return ans, unavailable(mode, "decode answer of %s: %w", req.URL.Redacted(), err)
	}
	return ans, nil
}

// transient reports whether an upstream status means "try again later".
func transient(status int) bool {
	return status == http.StatusTooManyRequests || status >= http.StatusInternalServerError
}
