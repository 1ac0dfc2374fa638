package server

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/store"
)

// contentFails is a store whose reads of one revision with its content
// fail, as when the database goes away in the middle of a page.
type contentFails struct{ store.Store }

func (s contentFails) History(ctx context.Context, q store.HistoryQuery, yield func(store.Revision) error) error {
	if !q.NoContent {
		return errors.New("database gone")
	}
	return s.Store.History(ctx, q, yield)
}

// TestHistoryPageAborted: a read that fails once a page has begun breaks
// the connection, so the client sees a broken answer, never a short page
// that decodes.
func TestHistoryPageAborted(t *testing.T) {
	s, token := newInternal(t, Config{}, Options{})
	for _, v := range []string{"one", "two"} {
		if _, err := s.store.Apply(t.Context(), store.Write{Repo: "acme/app", Entries: map[string]string{"a.md": v}, Subject: "ann", Time: time.Now()}); err != nil {
			t.Fatal(err)
		}
	}
	s.store.Store = contentFails{s.store.Store}
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	q := url.Values{api.ParamRepo: {"acme/app"}, api.ParamKey: {"a.md"}}
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL+api.HistoryPath+"?"+q.Encode(), nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return // broken before the status came
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err == nil {
		t.Errorf("history page read whole = %d %q, want the answer broken off", resp.StatusCode, body)
	}
}
