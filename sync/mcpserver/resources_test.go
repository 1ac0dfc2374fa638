package mcpserver

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/teammemd/teammemd/sync/claude/claudetest"
)

func TestNoteURI(t *testing.T) {
	tests := []struct {
		repo, key, want string
	}{
		{"acme/app", "MEMORY.md", "teammemd://acme/app/~/MEMORY.md"},
		{"gitlab.example.com/a/b/c", "db/old notes#1.md", "teammemd://gitlab.example.com/a/b/c/~/db/old%20notes%231.md"},
		{"acme/app", "café/?.md", "teammemd://acme/app/~/caf%C3%A9/%3F.md"},
	}
	for _, tt := range tests {
		if got := noteURI(tt.repo, tt.key); got != tt.want {
			t.Errorf("noteURI(%q, %q) = %q, want %q", tt.repo, tt.key, got, tt.want)
		}
	}
}

// resourceURIs lists the server's resources.
func (c *client) resourceURIs(t *testing.T) []string {
	t.Helper()
	var uris []string
	for r, err := range c.cs.Resources(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		uris = append(uris, r.URI)
	}
	slices.Sort(uris)
	return uris
}

func TestResourcesFollowTheDisk(t *testing.T) {
	dir := teamDir(t, map[string]string{"MEMORY.md": "# Team memory\n", "db/postgres.md": "PostgreSQL 16\n"})
	c := startServer(t, defaultOpts(dir))
	ctx := context.Background()
	want := []string{"teammemd://acme/app/~/MEMORY.md", "teammemd://acme/app/~/db/postgres.md"}
	if got := c.resourceURIs(t); !slices.Equal(got, want) {
		t.Fatalf("resources = %v, want %v", got, want)
	}
	res, err := c.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: want[1]})
	if err != nil || res.Contents[0].Text != "PostgreSQL 16\n" || res.Contents[0].MIMEType != "text/markdown" {
		t.Fatalf("ReadResource(%s) = %+v, %v", want[1], res, err)
	}
	if err := c.cs.Subscribe(ctx, &mcp.SubscribeParams{URI: want[1]}); err != nil {
		t.Fatal(err)
	}

	// A teammate's change, pulled by the daemon, lands as a file change.
	claudetest.WriteNote(t, dir, "db/postgres.md", "PostgreSQL 17\n")
	if got := waitFor(t, c.updated, "resource update after a file changed"); got != want[1] {
		t.Errorf("resource updated = %s, want %s", got, want[1])
	}
	res, err = c.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: want[1]})
	if err != nil || res.Contents[0].Text != "PostgreSQL 17\n" {
		t.Errorf("ReadResource after the change = %+v, %v", res, err)
	}
	var s searchOut
	c.call(t, "memory_search", map[string]any{"query": "17"}, &s)
	if len(s.Hits) != 1 || s.Hits[0].Key != "db/postgres.md" {
		t.Errorf("memory_search(17) after the change = %+v, want db/postgres.md", s.Hits)
	}

	drain(c.listChanged)
	claudetest.WriteNote(t, dir, "new.md", "a new note\n")
	waitFor(t, c.listChanged, "list change after a file was added")
	if err := os.Remove(filepath.Join(dir, "MEMORY.md")); err != nil {
		t.Fatal(err)
	}
	for !slices.Equal(c.resourceURIs(t), []string{want[1], "teammemd://acme/app/~/new.md"}) {
		waitFor(t, c.listChanged, "list change after a file was removed")
	}
}

// drain empties a notification channel.
func drain[T any](ch chan T) {
	for {
		select {
		case <-ch:
		default:
			return
		}
	}
}

func TestResourcesOfAWrite(t *testing.T) {
	c := startServer(t, defaultOpts(teamDir(t, nil)))
	drain(c.listChanged)
	c.call(t, "memory_write", map[string]any{"key": "a.md", "content": "x\n"}, nil)
	waitFor(t, c.listChanged, "list change after memory_write")
	if got := c.resourceURIs(t); !slices.Equal(got, []string{"teammemd://acme/app/~/a.md"}) {
		t.Errorf("resources after memory_write = %v", got)
	}
}
