package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/teammemd/teammemd/scan/scantest"
)

// mcpTeamDir is a team directory with two notes, and an environment that
// keeps teammemd off the user's own config and state.
func mcpTeamDir(t *testing.T) (dir string, env []string) {
	t.Helper()
	home := t.TempDir()
	dir = filepath.Join(home, "team")
	for key, content := range map[string]string{"MEMORY.md": "# Team memory\n", "db/postgres.md": "We run PostgreSQL 16.\n"} {
		p := filepath.Join(dir, filepath.FromSlash(key))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	config := filepath.Join(home, "config.toml")
	if err := os.WriteFile(config, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	env = append(os.Environ(), "TEAMMEMD_CONFIG="+config, "HOME="+home, "XDG_STATE_HOME="+filepath.Join(home, "state"),
		"CLAUDE_CONFIG_DIR="+filepath.Join(home, "claude"), "TEAMMEMD_SERVER=", "TEAMMEMD_TOKEN=")
	return dir, env
}

// TestMCPOverStdio runs the built binary as an MCP server and talks to it
// with the Go SDK's client over its stdin and stdout.
func TestMCPOverStdio(t *testing.T) {
	dir, env := mcpTeamDir(t)
	cmd := exec.Command(teammemdBinary(t), "mcp", "--dir", dir, "--repo", "acme/app")
	cmd.Env = env
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	if want := []string{"memory", "memory_delete", "memory_history", "memory_list", "memory_read", "memory_search", "memory_write"}; !slices.Equal(names, want) {
		t.Errorf("tools = %v, want %v", names, want)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "memory_write", Arguments: map[string]any{"key": "notes/ci.md", "content": "CI runs make test.\n"}})
	if err != nil || res.IsError {
		t.Fatalf("memory_write = %+v, %v", res, err)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "memory_write", Arguments: map[string]any{"key": "keys.md", "content": scantest.AWSNote(scantest.AWSKey())}})
	if err != nil || !res.IsError {
		t.Errorf("memory_write(a secret) = %+v, %v, want it refused", res, err)
	}
	if err := cs.Close(); err != nil {
		t.Errorf("Close = %v, want the server to end cleanly when its stdin closes", err)
	}
	if data, err := os.ReadFile(filepath.Join(dir, "notes", "ci.md")); err != nil || string(data) != "CI runs make test.\n" {
		t.Errorf("notes/ci.md = %q, %v", data, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "keys.md")); err == nil {
		t.Error("the note holding a secret reached the disk")
	}
}

// TestMCPNodeClient drives teammemd mcp with the official TypeScript SDK
// (testdata/mcp/client.cjs). It runs when TEAMMEMD_TEST_MCP=1, as in
// .ci/run, and then fails, rather than skips, when node or the SDK
// (installed by npm ci from testdata/mcp into TEAMMEMD_TEST_MCP_NODE_DIR)
// is missing.
func TestMCPNodeClient(t *testing.T) {
	if os.Getenv("TEAMMEMD_TEST_MCP") != "1" {
		t.Skip("TEAMMEMD_TEST_MCP=1 runs the TypeScript SDK's client (see .ci/run)")
	}
	nodeDir := os.Getenv("TEAMMEMD_TEST_MCP_NODE_DIR")
	if _, err := os.Stat(filepath.Join(nodeDir, "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		t.Fatalf("TEAMMEMD_TEST_MCP_NODE_DIR=%q holds no @modelcontextprotocol/sdk: run npm ci there with cmd/teammemd/testdata/mcp/package*.json (%v)", nodeDir, err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal(err)
	}
	script, err := filepath.Abs(filepath.Join("testdata", "mcp", "client.cjs"))
	if err != nil {
		t.Fatal(err)
	}
	dir, env := mcpTeamDir(t)
	secret := scantest.AWSKey()
	cmd := exec.Command(node, script)
	cmd.Env = append(env, "MCP_NODE_DIR="+nodeDir, "MCP_BIN="+teammemdBinary(t), "MCP_DIR="+dir, "MCP_SECRET="+secret)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "mcp e2e: ok") {
		t.Fatalf("node client.cjs: %v\n%s", err, out)
	}
	want := map[string]string{"db/postgres.md": "We run PostgreSQL 17.\n", "notes/ci.md": "CI runs make test.\n", "notes/review.md": "Review every PR.\n"}
	for key, content := range want {
		if data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(key))); err != nil || string(data) != content {
			t.Errorf("%s = %q, %v, want %q", key, data, err, content)
		}
	}
	for _, key := range []string{"deploy.md", "keys.md"} {
		if _, err := os.Stat(filepath.Join(dir, key)); err == nil {
			t.Errorf("%s, which held a secret, reached the disk", key)
		}
	}
	if strings.Contains(string(out), secret) {
		t.Error("the output shows the secret")
	}
}

// teammemd mcp reads [client] share_user_notes as the daemon does, so
// that what it tells a write of a note of type user is what the daemon
// does with it.
func TestMCPOptionsShareUserNotes(t *testing.T) {
	isolateConfig(t)
	for _, share := range []bool{false, true} {
		config := writeConfig(t, fmt.Sprintf("[client]\nshare_user_notes = %v\n", share))
		opts, err := mcpOptions(syncFlags{config: config}, io.Discard)
		if err != nil || opts.ShareUserNotes != share {
			t.Errorf("mcpOptions(share_user_notes = %v).ShareUserNotes = %v, %v; want %v", share, opts.ShareUserNotes, err, share)
		}
	}
}
