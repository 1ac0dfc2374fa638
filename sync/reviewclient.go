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

// OpReview names the requests of review in errors and logs.
const OpReview = "review"

// ProposalQuery selects a repo's proposals: by State ("" for pending,
// "all", "approved" or "rejected"); with Wait, the server holds the
// answer until a proposal with an id above After is listed, or Wait
// passes.
type ProposalQuery struct {
	State string
	After int64
	Wait  time.Duration
}

// Proposals lists the proposals of repo q selects, without content: every
// one for a reviewer, the caller's own for anyone else.
func (c *Client) Proposals(ctx context.Context, repo string, q ProposalQuery) ([]api.Proposal, error) {
	v := url.Values{api.ParamRepo: {repo}}
	if q.State != "" {
		v.Set(api.ParamState, q.State)
	}
	timeout := time.Duration(0)
	if q.Wait > 0 {
		secs := max(int(q.Wait/time.Second), 1)
		v.Set(api.ParamWait, strconv.Itoa(secs))
		v.Set(api.ParamAfter, strconv.FormatInt(q.After, 10))
		timeout = time.Duration(secs)*time.Second + waitMargin
	}
	var out api.ProposalsResponse
	rq := request{op: OpReview, repo: repo, method: http.MethodGet, url: c.reviewURL("", v), timeout: timeout, maxBody: protocolLimits.HashesBodyBytes()}
	if _, err := c.do(ctx, rq, &out); err != nil {
		return nil, fmt.Errorf("list proposals of %s: %w", repo, err)
	}
	return out.Proposals, nil
}

// Proposal returns proposal id with its content and the repo's current
// content of its keys.
func (c *Client) Proposal(ctx context.Context, id int64) (api.ProposalResponse, error) {
	return c.reviewCall(ctx, http.MethodGet, id, "", nil)
}

// Approve approves proposal id; a non-empty req approves an edited
// version of it (see api.ApproveRequest).
func (c *Client) Approve(ctx context.Context, id int64, req api.ApproveRequest) (api.ProposalResponse, error) {
	return c.reviewCall(ctx, http.MethodPost, id, "approve", req)
}

// Reject rejects proposal id for reason, which its author sees.
func (c *Client) Reject(ctx context.Context, id int64, reason string) (api.ProposalResponse, error) {
	return c.reviewCall(ctx, http.MethodPost, id, "reject", api.RejectRequest{Reason: reason})
}

// PurgeProposal drops the content of rejected proposal id for good.
func (c *Client) PurgeProposal(ctx context.Context, id int64) (api.ProposalResponse, error) {
	return c.reviewCall(ctx, http.MethodPost, id, "purge", struct{}{})
}

// reviewCall sends one request about proposal id: GET it, or POST action
// with body encoded as JSON.
func (c *Client) reviewCall(ctx context.Context, method string, id int64, action string, body any) (api.ProposalResponse, error) {
	var out api.ProposalResponse
	path := "/" + strconv.FormatInt(id, 10)
	if action != "" {
		path += "/" + action
	}
	rq := request{op: OpReview, method: method, url: c.reviewURL(path, nil), maxBody: protocolLimits.FullBodyBytes()}
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return out, fmt.Errorf("encode %s request: %w", action, err)
		}
		rq.body = b
	}
	if _, err := c.do(ctx, rq, &out); err != nil {
		what := "read"
		if action != "" {
			what = action
		}
		return out, fmt.Errorf("%s proposal %d: %w", what, id, err)
	}
	return out, nil
}

// reviewURL is the URL of the proposals route, with path after it and
// query q.
func (c *Client) reviewURL(path string, q url.Values) string {
	return c.endpoint(api.ProposalsPath+path, q)
}
