package memsync

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/server/api"
)

// fixedServer answers every request with status and body.
func fixedServer(t *testing.T, status int, body string) *Client {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	return testClient(t, srv.URL, "t")
}

// jsonText encodes s as a JSON string.
func jsonText(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// historyBody is a history page of one revision by subject with content.
func historyBody(subject, content string) string {
	return `{"repo":"acme/app","key":"a.md","revisions":[{"version":1,"checksum":"sha256:00","subject":` +
		jsonText(subject) + `,"time":"2026-01-01T00:00:00Z","content":` + jsonText(content) + `}]}`
}

// TestClientBoundsResponses: an answer larger than the protocol lets the
// server send for the request is refused, and says so; one as large as
// the protocol allows is taken.
func TestClientBoundsResponses(t *testing.T) {
	huge := strings.Repeat("x", 2<<20)
	largest := strings.Repeat("<", api.DefaultMaxEntryBytes) // six times as long in JSON
	push := func(c *Client) error {
		_, err := c.Put(context.Background(), testRepo, "", []byte(`{"entries":{}}`))
		return err
	}
	history := func(noContent bool) func(c *Client) error {
		return func(c *Client) error {
			_, err := c.HistoryPage(context.Background(), testRepo, HistoryRequest{Key: "a.md", Limit: 1, NoContent: noContent})
			return err
		}
	}
	tests := []struct {
		name   string
		status int
		body   string
		call   func(*Client) error
		over   bool
	}{
		{"push answer", 200, `{"organizationId":` + jsonText(huge) + `,"repo":"acme/app","version":1,"lastModified":"2026-01-01T00:00:00Z","checksum":"sha256:00"}`, push, true},
		{"error answer", 400, `{"type":"error","error":{"type":"invalid_request_error","message":` + jsonText(huge) + `,"details":{"error_code":"invalid_request"}}}`, push, true},
		{"history without content", 200, historyBody(huge, ""), history(true), true},
		{"history, one revision", 200, historyBody("ann", huge), history(false), true},
		{"history, the largest revision", 200, historyBody("ann", largest), history(false), false},
	}
	for _, tt := range tests {
		err := tt.call(fixedServer(t, tt.status, tt.body))
		msg := fmt.Sprint(err)
		msg = msg[:min(len(msg), 300)]
		var ns *NotServerError
		switch {
		case tt.over && (!errors.As(err, &ns) || !strings.Contains(ns.Reason, "more than the protocol allows")):
			t.Errorf("%s of %d bytes: error = %s, want a refusal of its size", tt.name, len(tt.body), msg)
		case !tt.over && err != nil:
			t.Errorf("%s of %d bytes: error = %s, want none", tt.name, len(tt.body), msg)
		}
	}
}
