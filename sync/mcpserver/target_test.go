//lint:file-ignore SA1019 the tests offer roots as an older client does

package mcpserver

import (
	"context"
	"errors"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/teammemd/teammemd/scan/scantest"
	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/sync/claude/claudetest"
)

// checkouts maps checkout directories to team directories, as git and
// Claude Code's layout would.
func checkouts(m map[string]Target) func(context.Context, string) (Target, error) {
	return func(_ context.Context, dir string) (Target, error) {
		if t, ok := m[filepath.Clean(dir)]; ok {
			return t, nil
		}
		return Target{}, errors.New("not a git checkout")
	}
}

func TestDefaultFromRoots(t *testing.T) {
	rootDir, cwd := t.TempDir(), t.TempDir()
	fromRoot := teamDir(t, map[string]string{"root.md": "from the root\n"})
	fromCwd := teamDir(t, map[string]string{"cwd.md": "from the cwd\n"})
	discover := checkouts(map[string]Target{
		rootDir: {Repo: "acme/root", Dir: fromRoot},
		cwd:     {Repo: "acme/cwd", Dir: fromCwd},
	})
	tests := []struct {
		name  string
		roots []*mcp.Root
		repo  string
	}{
		{"a root", []*mcp.Root{{URI: (&url.URL{Scheme: "file", Path: rootDir}).String()}}, "acme/root"},
		{"a root that is no checkout, then one", []*mcp.Root{{URI: "file:///nowhere"}, {URI: "file://" + rootDir}}, "acme/root"},
		{"no roots", nil, "acme/cwd"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := startServer(t, Options{Discover: discover, Cwd: cwd}, tt.roots...)
			var out listOut
			c.call(t, "memory_list", nil, &out)
			if out.Repo != tt.repo {
				t.Errorf("memory_list = repo %s, want %s", out.Repo, tt.repo)
			}
		})
	}
}

func TestRepoArgument(t *testing.T) {
	app := teamDir(t, map[string]string{"app.md": "app\n"})
	other := teamDir(t, map[string]string{"other.md": "other\n"})
	known := func(context.Context) ([]Target, error) {
		return []Target{{Repo: "acme/app", Dir: app}, {Repo: "acme/other", Dir: other}}, nil
	}
	c := startServer(t, Options{Default: &Target{Repo: "acme/app", Dir: app}, Known: known})
	var out listOut
	c.call(t, "memory_list", map[string]any{"repo": "acme/other"}, &out)
	if out.Repo != "acme/other" || len(out.Notes) != 1 || out.Notes[0].Key != "other.md" {
		t.Errorf("memory_list(repo acme/other) = %+v", out)
	}
	c.call(t, "memory_write", map[string]any{"repo": "acme/other", "key": "b.md", "content": "b\n"}, nil)
	if claudetest.ReadNote(t, other, "b.md") != "b\n" || claudetest.ReadNote(t, app, "b.md") != "<missing>" {
		t.Error("memory_write(repo acme/other) did not write into acme/other's team directory alone")
	}
	msg := c.callErr(t, "memory_list", map[string]any{"repo": "acme/unknown"})
	if !strings.Contains(msg, "acme/other") {
		t.Errorf("memory_list(an unknown repo) = %q, want the repos this machine syncs", msg)
	}
}

// A repo argument whose slug holds a secret is named redacted, never as
// sent, when this machine syncs no such repo, as the server names it.
func TestSecretRepoArgumentRedacted(t *testing.T) {
	aws := scantest.AWSKey()
	slug := "acme/" + aws
	app := teamDir(t, map[string]string{"app.md": "app\n"})
	for name, known := range map[string][]Target{"none synced": nil, "others synced": {{Repo: "acme/app", Dir: app}}} {
		c := startServer(t, Options{Known: func(context.Context) ([]Target, error) { return known, nil }})
		for tool, args := range map[string]map[string]any{
			"memory_list":   {"repo": slug},
			"memory_read":   {"repo": slug, "key": "a.md"},
			"memory_write":  {"repo": slug, "key": "a.md", "content": "a\n"},
			"memory_delete": {"repo": slug, "key": "a.md", "sha256": strings.Repeat("0", 64)},
		} {
			msg := c.callErr(t, tool, args)
			if !strings.Contains(msg, "repo "+api.RedactKey(slug)+": ") || strings.Contains(msg, aws) {
				t.Errorf("%s: %s(repo %s) = %q, want the repo named %s", name, tool, slug, msg, api.RedactKey(slug))
			}
		}
	}
}

func TestNoTeamDirectory(t *testing.T) {
	c := startServer(t, Options{Discover: checkouts(nil), Cwd: t.TempDir()})
	msg := c.callErr(t, "memory_list", nil)
	if !strings.Contains(msg, "--dir and --repo") {
		t.Errorf("memory_list outside a checkout = %q, want how to name a team directory", msg)
	}
}
