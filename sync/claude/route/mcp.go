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
// Code's user config cannot start, as Claude Code would start it, and the
// fix when it is the file's own: a file that is no JSON object, or a
// command, at an absolute path, that is not an executable file (a bare
// name runs from the PATH Claude Code runs with, not known here). Both are
// empty when the server can start, or when none is registered over stdio.
func mcpProblem(config string) (problem, fix string) {
	data, err := os.ReadFile(config)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", ""
	case err != nil:
		return fmt.Sprintf("cannot read %s (%v), so whether Claude Code can start teammemd's MCP server is not known", config, err), ""
	}
	if p := objectProblem(data); p != "" {
		return fmt.Sprintf("%s is %s, so Claude Code may start none of its MCP servers, teammemd's among them", config, p), "fix the JSON in " + config
	}
	e := gjson.GetBytes(data, mcpKey)
	if t := e.Get("type").String(); !e.IsObject() || (t != "" && t != "stdio") {
		return "", ""
	}
	bin := e.Get("command").String()
	if bin == "" {
		return fmt.Sprintf("Claude Code's MCP server %s (in %s) names no command, so it cannot start and the agent has no teammemd tools", MCPServerName, config), ""
	}
	if runnable(bin) {
		return "", ""
	}
	return fmt.Sprintf("Claude Code's MCP server %s (in %s) runs %s, which is not there (moved or deleted), so it cannot start and the agent has no teammemd tools", MCPServerName, config, bin), ""
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

// MCPPlan is the registration of "binary mcp" as Claude Code's
// user-scope MCP server teammemd, read and checked, ready to write.
type MCPPlan struct {
	// Config is Claude Code's user config, Binary the teammemd it runs.
	Config, Binary string
	unchanged      bool
	after          []byte
	mode           fs.FileMode
	record         mcpRecord
	recordPath     string
}

// PlanMCP reads Claude Code's user config at config and the record of an
// earlier registration beside the setup record at recordPath, and returns
// the plan that registers binary. A config that is no JSON object, or a
// record that does not read, is an error, before anything is written.
func PlanMCP(config, recordPath, binary string) (MCPPlan, error) {
	before, mode, err := readUserConfig(config)
	if err != nil {
		return MCPPlan{}, fmt.Errorf("%w, so setup wrote nothing; fix the file, then run setup again", err)
	}
	p := MCPPlan{Config: config, Binary: binary, mode: mode, recordPath: mcpRecordPath(recordPath)}
	entry := MCPEntry(binary)
	prior := gjson.GetBytes(before, mcpKey)
	if prior.Exists() && sameJSON([]byte(prior.Raw), entry) {
		p.unchanged = true
		return p, nil
	}
	if p.after, err = sjson.SetRawBytes(before, mcpKey, entry); err != nil {
		return MCPPlan{}, fmt.Errorf("register the MCP server in %s: %w", config, err)
	}
	p.record = mcpRecord{Config: config, Written: entry, Created: !gjson.GetBytes(before, "mcpServers").Exists()}
	if prior.Exists() {
		p.record.Prior = json.RawMessage(prior.Raw)
	}
	old, err := loadMCPRecord(p.recordPath)
	if err != nil {
		return MCPPlan{}, err
	}
	if old != nil && old.Config == config {
		p.record.Prior, p.record.Created = old.Prior, old.Created
	}
	return p, nil
}

// Apply writes the plan, the record first, then the user config; with
// dry, it only says what it would do. It returns what it did, for the
// user.
func (p MCPPlan) Apply(dry bool, write WriteFunc) (string, error) {
	switch {
	case p.unchanged:
		return fmt.Sprintf("unchanged %s: mcpServers.%s runs %s mcp", p.Config, MCPServerName, p.Binary), nil
	case dry:
		return fmt.Sprintf("would set mcpServers.%s in %s to run %s mcp", MCPServerName, p.Config, p.Binary), nil
	}
	if err := saveMCPRecord(p.recordPath, p.record, write); err != nil {
		return "", err
	}
	if err := write(p.Config, p.after, p.mode); err != nil {
		return "", fmt.Errorf("write Claude Code's user config: %w", err)
	}
	return fmt.Sprintf("set mcpServers.%s in %s: Claude Code runs %s mcp for the team's notes", MCPServerName, p.Config, p.Binary), nil
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
		return "", fmt.Errorf("%w, so the undo wrote nothing; fix the file, then run it again", err)
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
// none, and its mode; a file that is no JSON object is an error.
func readUserConfig(path string) ([]byte, fs.FileMode, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return []byte("{}\n"), newSettingsMode, nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("read Claude Code's user config: %w", err)
	}
	if p := objectProblem(data); p != "" {
		return nil, 0, fmt.Errorf("%s is %s", path, p)
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
