package faulttest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/teammemd/teammemd/server/api"
)

// serverView reads one repo from the server, bypassing any proxy.
type serverView struct {
	base, token, repo string
	client            *http.Client
}

func newServerView(base, token, repo string) serverView {
	return serverView{base: base, token: token, repo: repo, client: &http.Client{Timeout: 30 * time.Second}}
}

// entries returns the repo's live entries; none for a repo never written.
func (v serverView) entries(ctx context.Context) (map[string]string, error) {
	var full api.FullResponse
	found, err := v.get(ctx, api.Path+"?"+url.Values{api.ParamRepo: {v.repo}}.Encode(), &full)
	if err != nil || !found {
		return map[string]string{}, err
	}
	return full.Content.Entries, nil
}

// history returns every revision of key, newest first; none for a key
// never written.
func (v serverView) history(ctx context.Context, key string) ([]api.Revision, error) {
	var all []api.Revision
	cursor := ""
	for {
		q := url.Values{api.ParamRepo: {v.repo}, api.ParamKey: {key}, api.ParamLimit: {"500"}}
		if cursor != "" {
			q.Set(api.ParamCursor, cursor)
		}
		var page api.HistoryResponse
		found, err := v.get(ctx, api.HistoryPath+"?"+q.Encode(), &page)
		if err != nil || !found {
			return all, err
		}
		all = append(all, page.Revisions...)
		if page.NextCursor == "" {
			return all, nil
		}
		cursor = page.NextCursor
	}
}

// get decodes a 200 answer into out; found is false on 404.
func (v serverView) get(ctx context.Context, pathQuery string, out any) (bool, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, v.base+pathQuery, nil)
	if err != nil {
		return false, err
	}
	req.Header.Set("Authorization", "Bearer "+v.token)
	resp, err := v.client.Do(req)
	if err != nil {
		return false, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	switch {
	case err != nil:
		return false, fmt.Errorf("GET %s: read answer: %w", pathQuery, err)
	case resp.StatusCode == http.StatusNotFound:
		return false, nil
	case resp.StatusCode != http.StatusOK:
		return false, fmt.Errorf("GET %s: %d %s", pathQuery, resp.StatusCode, body)
	}
	if err := json.Unmarshal(body, out); err != nil {
		return false, fmt.Errorf("GET %s: decode answer: %w", pathQuery, err)
	}
	return true, nil
}
