package mcpserver

import (
	"context"
	"strings"
	"testing"

	"golang.org/x/oauth2"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/servertest"
	memsync "github.com/teammemd/teammemd/sync"
)

func TestHistory(t *testing.T) {
	srv := servertest.Start(t)
	hc, err := memsync.NewClient(srv.URL, oauth2.StaticTokenSource(&oauth2.Token{AccessToken: srv.Token}))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	put := func(ifMatch, body string) string {
		resp, err := hc.Put(ctx, testRepo, ifMatch, []byte(body))
		if err != nil {
			t.Fatal(err)
		}
		return resp.Checksum
	}
	sum := put("", `{"entries":{"ci.md":"CI runs make test.\n"}}`)
	put(sum, `{"entries":{"ci.md":"CI runs make check.\n"}}`)

	c := startServer(t, Options{Default: &Target{Repo: testRepo, Dir: teamDir(t, nil), History: hc}})
	var out historyOut
	c.call(t, "memory_history", map[string]any{"key": "ci.md"}, &out)
	if len(out.Revisions) != 2 || out.More || out.Revisions[0].Version <= out.Revisions[1].Version ||
		out.Revisions[0].SHA256 != api.EntryChecksum("CI runs make check.\n") || out.Revisions[0].Content != nil {
		t.Fatalf("memory_history(ci.md) = %+v, want two revisions, newest first, without content", out)
	}
	c.call(t, "memory_history", map[string]any{"key": "ci.md", "limit": 1, "content": true}, &out)
	if len(out.Revisions) != 1 || !out.More || out.Revisions[0].Content == nil || *out.Revisions[0].Content != "CI runs make check.\n" {
		t.Errorf("memory_history(ci.md, limit 1, content) = %+v, want the newest with its content and more", out)
	}
	if msg := c.callErr(t, "memory_history", map[string]any{"key": "never.md"}); !strings.Contains(msg, "no revision") {
		t.Errorf("memory_history(never.md) = %q, want no revision", msg)
	}
}

func TestHistoryWithoutServer(t *testing.T) {
	c := startServer(t, defaultOpts(teamDir(t, nil)))
	if msg := c.callErr(t, "memory_history", map[string]any{"key": "ci.md"}); !strings.Contains(msg, "no server") {
		t.Errorf("memory_history without a server = %q, want no server", msg)
	}
}
