package server_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/servertest"
)

// bigValue is a value of the largest entry size that JSON escaping makes
// six times as long: every byte but a numbered tail is '<' (\u003c).
func bigValue(i int) string {
	tail := fmt.Sprintf("%06d", i)
	return strings.Repeat("<", api.DefaultMaxEntryBytes-len(tail)) + tail
}

// TestHistoryPageBytes: a page with content ends before the revision that
// would bring its content past the page's byte bound, whatever the limit
// asked for, and the next page carries on from there.
func TestHistoryPageBytes(t *testing.T) {
	s := servertest.Start(t)
	const n = 18
	for i := range n {
		put(t, s, repo, map[string]string{"a.md": bigValue(i)})
	}
	var sizes []int
	cursor, total := "", 0
	for page := 0; page < n; page++ {
		q := memQuery(repo, "key", "a.md", "limit", "500")
		if cursor != "" {
			q += "&cursor=" + cursor
		}
		r := do(t, s.URL, req{path: api.HistoryPath, query: q, token: s.Token})
		if r.status != http.StatusOK {
			t.Fatalf("history page %d = %d, want 200", page, r.status)
		}
		if bound := api.DefaultLimits().HistoryBodyBytes(500, true); int64(len(r.body)) > bound {
			t.Errorf("history page %d is %d bytes, over the %d a client takes", page, len(r.body), bound)
		}
		var h api.HistoryResponse
		decode(t, r, &h)
		sizes = append(sizes, len(h.Revisions))
		for _, rev := range h.Revisions {
			if rev.Content == nil || *rev.Content != bigValue(n-1-total) {
				t.Fatalf("revision %d (version %d) has not its content", total, rev.Version)
			}
			total++
		}
		if cursor = h.NextCursor; cursor == "" {
			break
		}
	}
	if got, want := fmt.Sprint(sizes), "[16 2]"; got != want {
		t.Errorf("revisions a page = %s, want %s (4 MiB of content a page)", got, want)
	}
}

// TestHistoryPageBytesSetting: max_history_page_bytes bounds the content
// of a page; a revision larger than it comes alone; a page without content
// is bounded by its limit only, and names each revision's size.
func TestHistoryPageBytesSetting(t *testing.T) {
	s := servertest.Start(t, servertest.WithLimits(api.Limits{MaxHistoryPageBytes: 10}))
	for _, v := range []string{"0123456789abc", "xy", "z"} {
		put(t, s, repo, map[string]string{"a.md": v})
	}
	put(t, s, repo, nil, "a.md")
	tests := []struct {
		content string
		want    string
	}{
		{"true", "[v4 deleted, v3 1 z, v2 2 xy] [v1 13 0123456789abc]"},
		{"false", "[v4 deleted, v3 1, v2 2, v1 13]"},
	}
	for _, tt := range tests {
		var pages []string
		cursor := ""
		for range 5 {
			q := memQuery(repo, "key", "a.md", "limit", "10", "content", tt.content)
			if cursor != "" {
				q += "&cursor=" + cursor
			}
			r := do(t, s.URL, req{path: api.HistoryPath, query: q, token: s.Token})
			if r.status != http.StatusOK {
				t.Fatalf("content=%s: history = %d %s, want 200", tt.content, r.status, r.body)
			}
			var h api.HistoryResponse
			decode(t, r, &h)
			var revs []string
			for _, rev := range h.Revisions {
				revs = append(revs, revisionLine(rev))
			}
			pages = append(pages, "["+strings.Join(revs, ", ")+"]")
			if cursor = h.NextCursor; cursor == "" {
				break
			}
		}
		if got := strings.Join(pages, " "); got != tt.want {
			t.Errorf("content=%s: pages = %s, want %s", tt.content, got, tt.want)
		}
	}
}

// revisionLine shows a revision's version, then "deleted", or its size
// and content.
func revisionLine(rev api.Revision) string {
	line := fmt.Sprintf("v%d", rev.Version)
	switch {
	case rev.Deleted:
		return line + " deleted"
	case rev.Size != nil:
		line += fmt.Sprintf(" %d", *rev.Size)
	}
	if rev.Content != nil {
		line += " " + *rev.Content
	}
	return line
}
