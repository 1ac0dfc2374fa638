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

// getJSON GETs url with the bearer (none when empty) and extra headers, and
// decodes a 200 body
// into out. A failure to reach the service, or a 200 it cannot decode, is an
// *UnavailableError; other statuses are returned for the caller to judge.
// Neither the bearer nor the body ever reaches an error.
func getJSON(ctx context.Context, client *http.Client, mode, url, bearer string, header map[string]string, out any) (upstreamAnswer, error) {
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
	resp, err := client.Do(req)
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
