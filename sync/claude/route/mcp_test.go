package route

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/teammemd/teammemd/sync/fsio"
)

// registerMCP plans the registration of binary and writes it.
func registerMCP(config, record, binary string) (string, error) {
	p, err := PlanMCP(config, record, binary)
	if err != nil {
		return "", err
	}
	return p.Apply(false, fsio.WriteFile)
}

// Registering the MCP server adds teammemd's entry to Claude Code's user
// config beside what is there, and the undo puts back what it replaced.
func TestRegisterMCP(t *testing.T) {
	for _, c := range []struct {
		name, before, restored string
	}{
		{"no file", "", ""},
		{"other servers", `{"userID":"u1","mcpServers":{"github":{"type":"http","url":"https://example.invalid/mcp"}}}`,
			`{"userID":"u1","mcpServers":{"github":{"type":"http","url":"https://example.invalid/mcp"}}}`},
		{"an older entry", `{"mcpServers":{"teammemd":{"type":"stdio","command":"/opt/old/teammemd","args":["mcp"]}}}`,
			`{"mcpServers":{"teammemd":{"type":"stdio","command":"/opt/old/teammemd","args":["mcp"]}}}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			config, record := filepath.Join(dir, ".claude.json"), filepath.Join(dir, "state", "claude-setup.json")
			if c.before != "" {
				if err := os.WriteFile(config, []byte(c.before), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := registerMCP(config, record, "/usr/bin/teammemd"); err != nil {
				t.Fatalf("registerMCP = %v", err)
			}
			data, _ := os.ReadFile(config)
			if got := gjson.GetBytes(data, "mcpServers.teammemd"); !sameJSON([]byte(got.Raw), []byte(`{"type":"stdio","command":"/usr/bin/teammemd","args":["mcp"]}`)) {
				t.Errorf("entry = %s, want stdio /usr/bin/teammemd mcp", got.Raw)
			}
			if c.before != "" && gjson.GetBytes(data, "userID").String() != gjson.Get(c.before, "userID").String() {
				t.Errorf("config = %s, want the rest kept", data)
			}
			if msg, err := registerMCP(config, record, "/usr/bin/teammemd"); err != nil || msg[:9] != "unchanged" {
				t.Errorf("registerMCP again = %q, %v, want unchanged", msg, err)
			}
			if _, err := UnregisterMCP(record, false, fsio.WriteFile); err != nil {
				t.Fatalf("UnregisterMCP = %v", err)
			}
			data, _ = os.ReadFile(config)
			want := c.restored
			if want == "" {
				want = "{}"
			}
			if !sameJSON(data, []byte(want)) {
				t.Errorf("config after undo = %s, want %s", data, want)
			}
			if msg, err := UnregisterMCP(record, false, fsio.WriteFile); msg != "" || err != nil {
				t.Errorf("UnregisterMCP again = %q, %v, want nothing to do", msg, err)
			}
		})
	}
}

// An entry the user changed after setup survives the undo; a config that
// is not JSON is refused and left as it is.
func TestRegisterMCPKeepsTheUsers(t *testing.T) {
	dir := t.TempDir()
	config, record := filepath.Join(dir, ".claude.json"), filepath.Join(dir, "claude-setup.json")
	if _, err := registerMCP(config, record, "/usr/bin/teammemd"); err != nil {
		t.Fatal(err)
	}
	mine := `{"mcpServers":{"teammemd":{"type":"stdio","command":"/home/me/bin/teammemd","args":["mcp","--repo","acme/app"]}}}`
	if err := os.WriteFile(config, []byte(mine), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := UnregisterMCP(record, false, fsio.WriteFile); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(config); string(data) != mine {
		t.Errorf("config after undo = %s, want the user's entry kept", data)
	}
	broken := []byte(`{"mcpServers": {`)
	if err := os.WriteFile(config, broken, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := registerMCP(config, record, "/usr/bin/teammemd"); err == nil {
		t.Error("registerMCP on a broken config = nil, want an error")
	}
	if data, _ := os.ReadFile(config); string(data) != string(broken) {
		t.Errorf("broken config = %s, want it untouched", data)
	}
}
