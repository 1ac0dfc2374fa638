package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/teammemd/teammemd/scan/scantest"
	"github.com/teammemd/teammemd/server/api"
)

// token creates a token on s's database for subject on repos.
func (s *served) newToken(t *testing.T, subject, repos string, readOnly bool) string {
	t.Helper()
	args := []string{"token", "create", "--data", s.data, "--subject", subject, "--repos", repos}
	if readOnly {
		args = append(args, "--read-only")
	}
	var out bytes.Buffer
	if err := run(context.Background(), args, &out, io.Discard); err != nil {
		t.Fatalf("token create: %v", err)
	}
	return strings.TrimSpace(out.String())
}

// bearer adds a bearer token to every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// mcpSession connects the Go SDK's client to s's /mcp with token.
func (s *served) mcpSession(t *testing.T, token string) *mcp.ClientSession {
	t.Helper()
	tr := &mcp.StreamableClientTransport{Endpoint: "http://" + s.addr + "/mcp",
		HTTPClient: &http.Client{Transport: bearer{token}}, DisableStandaloneSSE: true}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(context.Background(), tr, nil)
	if err != nil {
		t.Fatalf("connect to /mcp: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// call calls a tool and returns its structured result, or its error text
// when it failed.
func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (map[string]any, string) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var text strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text.WriteString(tc.Text)
		}
	}
	if res.IsError {
		return nil, text.String()
	}
	out, _ := res.StructuredContent.(map[string]any)
	if out == nil {
		out = map[string]any{"text": text.String()}
	}
	return out, ""
}

// The server's /mcp serves the tools on the repos a token may read,
// writing through the API's own checks.
func TestServeMCPTools(t *testing.T) {
	s := startServe(t, "")
	cs := s.mcpSession(t, s.token)
	w, msg := call(t, cs, "memory_write", map[string]any{"repo": "acme/app", "key": "db/postgres.md", "content": "We run PostgreSQL 16.\n"})
	if msg != "" {
		t.Fatalf("memory_write = %s", msg)
	}
	r, msg := call(t, cs, "memory_read", map[string]any{"repo": "acme/app", "key": "db/postgres.md"})
	if msg != "" || r["content"] != "We run PostgreSQL 16.\n" || r["sha256"] != w["sha256"] {
		t.Fatalf("memory_read = %v, %s; want the note written, sha256 %v", r, msg, w["sha256"])
	}
	found, msg := call(t, cs, "memory_search", map[string]any{"query": "postgres"})
	if hits, _ := found["hits"].([]any); msg != "" || len(hits) != 1 {
		t.Errorf("memory_search (the one repo the token reads) = %v, %s; want one hit", found, msg)
	}
	if _, msg := call(t, cs, "memory_write", map[string]any{"repo": "acme/app", "key": "db/postgres.md", "content": "PostgreSQL 17\n"}); !strings.Contains(msg, "already exists") {
		t.Errorf("memory_write without sha256 over a note = %q, want it refused as existing", msg)
	}
	if _, msg := call(t, cs, "memory_write", map[string]any{"repo": "acme/app", "key": "db/postgres.md", "content": "PostgreSQL 17\n", "sha256": w["sha256"]}); msg != "" {
		t.Fatalf("memory_write with the sha256 read = %s", msg)
	}
	if _, msg := call(t, cs, "memory_write", map[string]any{"repo": "acme/app", "key": "db/postgres.md", "content": "PostgreSQL 18\n", "sha256": w["sha256"]}); !strings.Contains(msg, "changed since it was read") {
		t.Errorf("memory_write with a stale sha256 = %q, want it refused as stale", msg)
	}
	aws := scantest.AWSKey()
	_, msg = call(t, cs, "memory_write", map[string]any{"repo": "acme/app", "key": "keys.md", "content": scantest.AWSNote(aws)})
	if !strings.Contains(msg, scantest.AWSRule) || strings.Contains(msg, aws) {
		t.Errorf("memory_write(a secret) = %q, want it refused naming rule %s, without the secret", msg, scantest.AWSRule)
	}
	status, body := s.do(t, http.MethodGet, nil)
	var full struct {
		Content struct{ Entries map[string]string }
	}
	if err := json.Unmarshal(body, &full); err != nil || status != http.StatusOK {
		t.Fatalf("GET = %d %s", status, body)
	}
	if got := full.Content.Entries; len(got) != 1 || got["db/postgres.md"] != "PostgreSQL 17\n" {
		t.Errorf("the API's entries = %v, want db/postgres.md alone, as last written", got)
	}
}

// A read-only token reads but cannot write; a token without a grant on a
// repo sees nothing of it, not even its name.
func TestServeMCPGrants(t *testing.T) {
	s := startServe(t, "")
	owner := s.mcpSession(t, s.token)
	for _, repo := range []string{"acme/app", "acme/secret-plans"} {
		if _, msg := call(t, owner, "memory_write", map[string]any{"repo": repo, "key": "MEMORY.md", "content": "# " + repo + "\n"}); msg != "" {
			t.Fatalf("memory_write to %s = %s", repo, msg)
		}
	}
	reader := s.mcpSession(t, s.newToken(t, "rita", "acme/app", true))
	if r, msg := call(t, reader, "memory_read", map[string]any{"key": "MEMORY.md"}); msg != "" || r["content"] != "# acme/app\n" {
		t.Errorf("memory_read with a read-only token = %v, %s", r, msg)
	}
	if _, msg := call(t, reader, "memory_write", map[string]any{"repo": "acme/app", "key": "ci.md", "content": "CI\n"}); !strings.Contains(msg, "can read this repo but not write it") {
		t.Errorf("memory_write with a read-only token = %q, want it refused", msg)
	}
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"memory_list", map[string]any{}},
		{"memory_list", map[string]any{"repo": "acme/nothing"}},
		{"memory_search", map[string]any{"query": "plans"}},
		{"memory_read", map[string]any{"repo": "acme/secret-plans", "key": "MEMORY.md"}},
		{"memory_write", map[string]any{"repo": "acme/secret-plans", "key": "x.md", "content": "x\n"}},
		{"memory_history", map[string]any{"repo": "acme/secret-plans", "key": "MEMORY.md"}},
	} {
		out, msg := call(t, reader, c.tool, c.args)
		all, _ := json.Marshal(out)
		if strings.Contains(msg+string(all), "secret-plans") && c.args["repo"] != "acme/secret-plans" {
			t.Errorf("%s(%v) = %s %s: names a repo the token cannot read", c.tool, c.args, all, msg)
		}
		if c.args["repo"] == "acme/secret-plans" && !strings.Contains(msg, "no repo acme/secret-plans among those this credential can read") {
			t.Errorf("%s(%v) = %s %s, want the answer of a repo that does not exist", c.tool, c.args, all, msg)
		}
	}
	_, unknown := call(t, reader, "memory_read", map[string]any{"repo": "acme/nothing", "key": "MEMORY.md"})
	_, hidden := call(t, reader, "memory_read", map[string]any{"repo": "acme/secret-plans", "key": "MEMORY.md"})
	if strings.ReplaceAll(unknown, "nothing", "secret-plans") != hidden {
		t.Errorf("a repo without a grant answers %q, one that does not exist %q: want the same", hidden, unknown)
	}
}

// /mcp asks for a credential as the API does, and names where to find
// how to get one; [server] mcp = false turns it off.
func TestServeMCPAuthAndSwitch(t *testing.T) {
	s := startServe(t, "")
	resp, err := http.Post("http://"+s.addr+"/mcp", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	want := `resource_metadata="http://` + s.addr + `/.well-known/oauth-protected-resource/mcp"`
	if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(resp.Header.Get("WWW-Authenticate"), want) {
		t.Errorf("POST /mcp without a token = %d, WWW-Authenticate %q; want 401 with %s", resp.StatusCode, resp.Header.Get("WWW-Authenticate"), want)
	}
	for _, path := range []string{"/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"} {
		resp, err := http.Get("http://" + s.addr + path)
		if err != nil {
			t.Fatal(err)
		}
		var md map[string]any
		err = json.NewDecoder(resp.Body).Decode(&md)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK || md["resource"] != "http://"+s.addr+"/mcp" {
			t.Errorf("GET %s = %d %v %v, want the metadata of http://%s/mcp", path, resp.StatusCode, md, err, s.addr)
		}
	}
	off := startServe(t, "[server]\nmcp = false\n")
	resp, err = http.Post("http://"+off.addr+"/mcp", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("POST /mcp with mcp = false = %d, want 404", resp.StatusCode)
	}
}

// mcpNodeDir is where npm ci installed testdata/mcp's packages; the test
// skips without TEAMMEMD_TEST_MCP=1 and fails when they are missing.
func mcpNodeDir(t *testing.T, pkg string) string {
	t.Helper()
	if os.Getenv("TEAMMEMD_TEST_MCP") != "1" {
		t.Skip("TEAMMEMD_TEST_MCP=1 runs the TypeScript SDK's client and the MCP Inspector (see .ci/run)")
	}
	dir := os.Getenv("TEAMMEMD_TEST_MCP_NODE_DIR")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", filepath.FromSlash(pkg), "package.json")); err != nil {
		t.Fatalf("TEAMMEMD_TEST_MCP_NODE_DIR=%q holds no %s: run npm ci there with cmd/teammemd/testdata/mcp/package*.json (%v)", dir, pkg, err)
	}
	return dir
}

// TestServeMCPNodeClient drives /mcp on a real teammemd serve with the
// official TypeScript SDK's client (testdata/mcp/remote.cjs).
func TestServeMCPNodeClient(t *testing.T) {
	nodeDir := mcpNodeDir(t, "@modelcontextprotocol/sdk")
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal(err)
	}
	s := startServe(t, "")
	secret := scantest.AWSKey()
	cmd := exec.Command(node, filepath.Join("testdata", "mcp", "remote.cjs"))
	cmd.Env = append(os.Environ(), "MCP_NODE_DIR="+nodeDir, "MCP_URL=http://"+s.addr+"/mcp", "MCP_TOKEN="+s.token,
		"MCP_READ_TOKEN="+s.newToken(t, "rita", "acme/app", true), "MCP_SECRET="+secret)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "mcp remote e2e: ok") {
		t.Fatalf("node remote.cjs: %v\n%s", err, out)
	}
	if strings.Contains(string(out)+s.log.String(), secret) {
		t.Error("the output or the server's log shows the secret")
	}
}

// inspect runs the MCP Inspector's CLI with args and returns what it
// printed.
func inspect(t *testing.T, nodeDir string, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command(filepath.Join(nodeDir, "node_modules", ".bin", "mcp-inspector"), append([]string{"--cli"}, args...)...)
	cmd.Env = env
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("mcp-inspector --cli %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr)
	}
	return string(out)
}

// TestMCPInspector runs the MCP Inspector in CLI mode against both
// transports: teammemd mcp over stdio, and /mcp on teammemd serve.
func TestMCPInspector(t *testing.T) {
	nodeDir := mcpNodeDir(t, "@modelcontextprotocol/inspector")
	dir, env := mcpTeamDir(t)
	stdio := []string{teammemdBinary(t), "mcp", "--dir", dir, "--repo", "acme/app"}
	s := startServe(t, "")
	remote := []string{"http://" + s.addr + "/mcp", "--transport", "http", "--header", "Authorization: Bearer " + s.token}
	if _, msg := call(t, s.mcpSession(t, s.token), "memory_write", map[string]any{"repo": "acme/app", "key": "db/postgres.md", "content": "We run PostgreSQL 16.\n"}); msg != "" {
		t.Fatal(msg)
	}
	for name, target := range map[string][]string{"stdio": stdio, "streamable HTTP": remote} {
		var list struct{ Tools []struct{ Name string } }
		if err := json.Unmarshal([]byte(inspect(t, nodeDir, env, append(target, "--method", "tools/list")...)), &list); err != nil || len(list.Tools) != 7 {
			t.Errorf("%s: tools/list = %+v, %v, want 7 tools", name, list, err)
		}
		var read struct{ StructuredContent struct{ Content string } }
		out := inspect(t, nodeDir, env, append(target, "--method", "tools/call", "--tool-name", "memory_read", "--tool-arg", "key=db/postgres.md")...)
		if err := json.Unmarshal([]byte(out), &read); err != nil || read.StructuredContent.Content != "We run PostgreSQL 16.\n" {
			t.Errorf("%s: tools/call memory_read = %s, %v", name, out, err)
		}
	}
}

// On a repo under review a write through /mcp is held as a proposal, as a
// PUT's is: the tool says so, and neither the API nor the tools show the
// content before a reviewer approves it.
func TestServeMCPWriteUnderReview(t *testing.T) {
	s := startServe(t, "[[server.repo]]\nname = \"acme/app\"\nreview = \"required\"\n")
	cs := s.mcpSession(t, s.token)
	_, msg := call(t, cs, "memory_write", map[string]any{"repo": "acme/app", "key": "deploy.md", "content": "Deploy on Tuesdays.\n"})
	if !strings.Contains(msg, "held for review as proposal") {
		t.Fatalf("memory_write on a repo under review = %q, want it held as a proposal", msg)
	}
	if r, msg := call(t, cs, "memory_read", map[string]any{"repo": "acme/app", "key": "deploy.md"}); msg == "" {
		t.Errorf("memory_read before approval = %v, want no such note", r)
	}
	status, body := s.do(t, http.MethodGet, nil)
	if status == http.StatusOK && strings.Contains(string(body), "Tuesdays") {
		t.Errorf("GET before approval = %d %s, want the proposal's content absent", status, body)
	}
}

// A note of type user is one person's, which a daemon never pushes by
// default: /mcp refuses it, through memory_write and the memory tool
// alike, and the team repo never holds it.
func TestServeMCPRefusesPersonalNote(t *testing.T) {
	s := startServe(t, "")
	cs := s.mcpSession(t, s.token)
	personal := "---\nname: u\ndescription: u\ntype: user\n---\nbob personal pref\n"
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"memory_write", map[string]any{"repo": "acme/app", "key": "srvuser.md", "content": personal}},
		{"memory", map[string]any{"repo": "acme/app", "command": "create", "path": "/memories/srvuser.md", "file_text": personal}},
	} {
		out, msg := call(t, cs, c.tool, c.args)
		if !strings.Contains(msg, "personal note") || !strings.Contains(msg, "personal memory") {
			t.Errorf("%s(a type: user note) = %v %q, want it refused as a personal note for the personal memory", c.tool, out, msg)
		}
	}
	status, body := s.do(t, http.MethodGet, nil)
	if strings.Contains(string(body), "bob personal pref") {
		t.Errorf("GET after the refused writes = %d %s, want no personal note in the team repo", status, body)
	}
}

// A repo whose slug holds a secret is named redacted, never as sent, in
// the answer of a token that may not read it and in the server's log.
func TestServeMCPSecretRepoRedacted(t *testing.T) {
	s := startServe(t, "")
	reader := s.mcpSession(t, s.newToken(t, "rita", "acme/app", true))
	aws := scantest.AWSKey()
	slug := "acme/" + aws
	want := "no repo " + api.RedactKey(slug) + " among those this credential can read"
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"memory_list", map[string]any{"repo": slug}},
		{"memory_read", map[string]any{"repo": slug, "key": "MEMORY.md"}},
		{"memory_history", map[string]any{"repo": slug, "key": "MEMORY.md"}},
		{"memory_write", map[string]any{"repo": slug, "key": "x.md", "content": "x\n"}},
	} {
		if _, msg := call(t, reader, c.tool, c.args); !strings.Contains(msg, want) || strings.Contains(msg, aws) {
			t.Errorf("%s(repo %s) = %q, want %q", c.tool, slug, msg, want)
		}
	}
	if strings.Contains(s.log.String(), aws) {
		t.Errorf("the server's log holds the slug:\n%s", s.log.String())
	}
}
