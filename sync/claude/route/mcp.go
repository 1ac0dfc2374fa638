package route

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// MCPServerName names teammemd's entry among Claude Code's MCP servers.
const MCPServerName = "teammemd"

// mcpKey is the entry's path in Claude Code's user config.
const mcpKey = "mcpServers." + MCPServerName

// UserConfigPath is the file in which Claude Code keeps its user-scope
// MCP servers (what "claude mcp add-json --scope user" writes):
// .claude.json in CLAUDE_CONFIG_DIR when that is set, else in the home
// directory.
func UserConfigPath() (string, error) {
	if d := os.Getenv("CLAUDE_CONFIG_DIR"); d != "" {
		return filepath.Join(d, ".claude.json"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("find Claude Code's user config (set CLAUDE_CONFIG_DIR): %w", err)
	}
	return filepath.Join(home, ".claude.json"), nil
}

// userConfigOf is the user config that goes with Claude Code's config
// directory home: in it when getenv sets CLAUDE_CONFIG_DIR, else beside
// it (~/.claude.json for ~/.claude), as UserConfigPath finds it.
func userConfigOf(home string, getenv func(string) string) string {
	if getenv("CLAUDE_CONFIG_DIR") != "" {
		return filepath.Join(home, ".claude.json")
	}
	return filepath.Join(filepath.Dir(home), ".claude.json")
}

// mcpProblem says why the MCP server registered as teammemd in Claude
// Code's user config cannot start, as Claude Code would start it: its
// command, at an absolute path, is not an executable file (a bare name
// runs from the PATH Claude Code runs with, not known here). It is empty
// when the server can start, or when none is registered over stdio.
func mcpProblem(config string) string {
	data, err := os.ReadFile(config)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return ""
	case err != nil:
		return fmt.Sprintf("cannot read %s (%v), so whether Claude Code can start teammemd's MCP server is not known", config, err)
	case !gjson.ValidBytes(data):
		return fmt.Sprintf("%s is not valid JSON, so Claude Code may start none of its MCP servers, teammemd's among them", config)
	}
	e := gjson.GetBytes(data, mcpKey)
	if t := e.Get("type").String(); !e.IsObject() || (t != "" && t != "stdio") {
		return ""
	}
	bin := e.Get("command").String()
	if bin == "" {
		return fmt.Sprintf("Claude Code's MCP server %s (in %s) names no command, so it cannot start and the agent has no teammemd tools", MCPServerName, config)
	}
	if runnable(bin) {
		return ""
	}
	return fmt.Sprintf("Claude Code's MCP server %s (in %s) runs %s, which is not there (moved or deleted), so it cannot start and the agent has no teammemd tools", MCPServerName, config, bin)
}

// mcpRecord is what registering the MCP server changed, kept beside the
// settings' record so that the undo can reverse it.
type mcpRecord struct {
	// Config is the file changed.
	Config string `json:"config"`
	// Prior is the entry before the first registration; null when there
	// was none.
	Prior json.RawMessage `json:"prior"`
	// Written is the entry as last written.
	Written json.RawMessage `json:"written"`
	// Created is whether the first registration created mcpServers.
	Created bool `json:"created,omitempty"`
}

// mcpRecordPath is where the MCP registration's record lives beside the
// settings' record.
func mcpRecordPath(recordPath string) string {
	return strings.TrimSuffix(recordPath, ".json") + "-mcp.json"
}

// MCPEntry is the user-scope MCP server entry that runs "binary mcp"
// over stdio, as "claude mcp add-json" stores it.
func MCPEntry(binary string) []byte {
	e, _ := json.Marshal(struct {
		Type    string   `json:"type"`
		Command string   `json:"command"`
		Args    []string `json:"args"`
	}{"stdio", binary, []string{"mcp"}})
	return e
}

// RegisterMCP registers "binary mcp" as Claude Code's user-scope MCP
// server teammemd in config, and records what it replaced next to the
// setup record at recordPath. With dry, it only says what it would do.
// It returns what it did, for the user.
func RegisterMCP(config, recordPath, binary string, dry bool, write WriteFunc) (string, error) {
	before, mode, err := readUserConfig(config)
	if err != nil {
		return "", err
	}
	entry := MCPEntry(binary)
	prior := gjson.GetBytes(before, mcpKey)
	if prior.Exists() && sameJSON([]byte(prior.Raw), entry) {
		return fmt.Sprintf("unchanged %s: mcpServers.%s runs %s mcp", config, MCPServerName, binary), nil
	}
	after, err := sjson.SetRawBytes(before, mcpKey, entry)
	if err != nil {
		return "", fmt.Errorf("register the MCP server in %s: %w", config, err)
	}
	if dry {
		return fmt.Sprintf("would set mcpServers.%s in %s to run %s mcp", MCPServerName, config, binary), nil
	}
	rec := mcpRecord{Config: config, Written: entry, Created: !gjson.GetBytes(before, "mcpServers").Exists()}
	if prior.Exists() {
		rec.Prior = json.RawMessage(prior.Raw)
	}
	if old, err := loadMCPRecord(mcpRecordPath(recordPath)); err != nil {
		return "", err
	} else if old != nil && old.Config == config {
		rec.Prior, rec.Created = old.Prior, old.Created
	}
	if err := saveMCPRecord(mcpRecordPath(recordPath), rec, write); err != nil {
		return "", err
	}
	if err := write(config, after, mode); err != nil {
		return "", fmt.Errorf("write Claude Code's user config: %w", err)
	}
	return fmt.Sprintf("set mcpServers.%s in %s: Claude Code runs %s mcp for the team's notes", MCPServerName, config, binary), nil
}

// UnregisterMCP takes the MCP server setup registered out of Claude
// Code's user config again: the entry it replaced comes back, or none.
// An entry changed since setup stays. With no registration recorded it
// does nothing and says nothing.
func UnregisterMCP(recordPath string, dry bool, write WriteFunc) (string, error) {
	path := mcpRecordPath(recordPath)
	rec, err := loadMCPRecord(path)
	if err != nil || rec == nil {
		return "", err
	}
	cur, mode, err := readUserConfig(rec.Config)
	if err != nil {
		return "", err
	}
	now := gjson.GetBytes(cur, mcpKey)
	if now.Exists() && !sameJSON([]byte(now.Raw), rec.Written) {
		return finishUnregister(path, dry, fmt.Sprintf("kept mcpServers.%s in %s: it was changed after setup", MCPServerName, rec.Config))
	}
	var after []byte
	if len(rec.Prior) > 0 && string(rec.Prior) != "null" {
		after, err = sjson.SetRawBytes(cur, mcpKey, rec.Prior)
	} else {
		after, err = sjson.DeleteBytes(cur, mcpKey)
		if s := gjson.GetBytes(after, "mcpServers"); err == nil && rec.Created && s.IsObject() && len(s.Map()) == 0 {
			after, err = sjson.DeleteBytes(after, "mcpServers")
		}
	}
	if err != nil {
		return "", fmt.Errorf("take the MCP server out of %s: %w", rec.Config, err)
	}
	verb := "took"
	if dry {
		verb = "would take"
	} else if err := write(rec.Config, after, mode); err != nil {
		return "", fmt.Errorf("write Claude Code's user config: %w", err)
	}
	return finishUnregister(path, dry, fmt.Sprintf("%s mcpServers.%s out of %s", verb, MCPServerName, rec.Config))
}

// finishUnregister removes the record, unless dry.
func finishUnregister(path string, dry bool, msg string) (string, error) {
	if dry {
		return msg, nil
	}
	if err := os.Remove(path); err != nil {
		return "", fmt.Errorf("remove the MCP registration's record: %w", err)
	}
	return msg, nil
}

// readUserConfig reads Claude Code's user config, "{}" when there is
// none, and its mode; a file that is no JSON object is an error, and
// nothing is written to it.
func readUserConfig(path string) ([]byte, fs.FileMode, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return []byte("{}\n"), newSettingsMode, nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("read Claude Code's user config: %w", err)
	}
	if p := objectProblem(data); p != "" {
		return nil, 0, fmt.Errorf("%s is %s, so nothing was written to it; fix the file, then run setup again", path, p)
	}
	mode := newSettingsMode
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	return data, mode, nil
}

// sameJSON reports whether a and b are the same JSON, spacing aside.
func sameJSON(a, b []byte) bool {
	var ca, cb bytes.Buffer
	return json.Compact(&ca, a) == nil && json.Compact(&cb, b) == nil && bytes.Equal(ca.Bytes(), cb.Bytes())
}

func loadMCPRecord(path string) (*mcpRecord, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the MCP registration's record: %w", err)
	}
	var r mcpRecord
	if err := json.Unmarshal(data, &r); err != nil || r.Config == "" {
		return nil, fmt.Errorf("the MCP registration's record %s is corrupt: %v; remove it to forget the registration", path, err)
	}
	return &r, nil
}

func saveMCPRecord(path string, r mcpRecord, write WriteFunc) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("encode the MCP registration's record: %w", err)
	}
	if err := write(path, append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("save the MCP registration's record: %w", err)
	}
	return nil
}
