package mcpserver

import (
	"strings"
	"testing"

	"github.com/teammemd/teammemd/scan/scantest"

	"github.com/teammemd/teammemd/sync/claude/claudetest"
)

func TestMemoryKey(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"/memories", "", true},
		{"/memories/", "", true},
		{"/memories/a.md", "a.md", true},
		{"/memories/db/", "db", true},
		{"/memories/../etc/passwd", "", false},
		{"/memories/a/../../b.md", "", false},
		{"/memories/%2e%2e/b.md", "", false},
		{"/memoriesx/a.md", "", false},
		{"/etc/a.md", "", false},
		{"memories/a.md", "", false},
		{`/memories/a\b.md`, "", false},
		{"/memories//a.md", "", false},
	}
	for _, tt := range tests {
		got, err := memoryKey(tt.in)
		if got != tt.want || (err == nil) != tt.ok {
			t.Errorf("memoryKey(%q) = %q, %v, want %q (ok %v)", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

func TestHumanSize(t *testing.T) {
	tests := []struct {
		in   int64
		want string
	}{{0, "0B"}, {512, "512B"}, {1024, "1K"}, {1536, "1.5K"}, {5 << 20, "5M"}}
	for _, tt := range tests {
		if got := humanSize(tt.in); got != tt.want {
			t.Errorf("humanSize(%d) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// memory calls the memory tool.
func (c *client) memory(t *testing.T, args map[string]any) string {
	t.Helper()
	return c.callText(t, "memory", args)
}

func TestMemoryTool(t *testing.T) {
	dir := teamDir(t, map[string]string{"MEMORY.md": "# Team memory\n", "db/postgres.md": "PostgreSQL 16\n"})
	c := startServer(t, defaultOpts(dir))
	steps := []struct {
		args map[string]any
		want string // in the tool's text
		key  string // a key to check on disk, with its content
		disk string
	}{
		{map[string]any{"command": "create", "path": "/memories/notes/ci.md", "file_text": "CI runs make test.\nIt takes 4 min.\n"},
			"File created successfully at: /memories/notes/ci.md", "notes/ci.md", "CI runs make test.\nIt takes 4 min.\n"},
		{map[string]any{"command": "view", "path": "/memories"},
			"14B\t/memories/MEMORY.md\n14B\t/memories/db/\n14B\t/memories/db/postgres.md\n35B\t/memories/notes/\n35B\t/memories/notes/ci.md", "", ""},
		{map[string]any{"command": "view", "path": "/memories/notes/ci.md", "view_range": []int{2, -1}},
			"with line numbers:\n     2\tIt takes 4 min.\n     3\t", "", ""},
		{map[string]any{"command": "str_replace", "path": "/memories/notes/ci.md", "old_str": "4 min", "new_str": "6 min"},
			"     2\tIt takes 6 min.", "notes/ci.md", "CI runs make test.\nIt takes 6 min.\n"},
		{map[string]any{"command": "insert", "path": "/memories/notes/ci.md", "insert_line": 1, "insert_text": "On every push.\n"},
			"has been edited", "notes/ci.md", "CI runs make test.\nOn every push.\nIt takes 6 min.\n"},
		{map[string]any{"command": "rename", "old_path": "/memories/notes", "new_path": "/memories/build"},
			"Successfully renamed /memories/notes to /memories/build", "build/ci.md", "CI runs make test.\nOn every push.\nIt takes 6 min.\n"},
		{map[string]any{"command": "delete", "path": "/memories/db"},
			"Successfully deleted /memories/db", "db/postgres.md", "<missing>"},
	}
	for _, st := range steps {
		got := c.memory(t, st.args)
		if !strings.Contains(got, st.want) {
			t.Errorf("memory(%v) = %q, want it to hold %q", st.args, got, st.want)
		}
		if st.key != "" && claudetest.ReadNote(t, dir, st.key) != st.disk {
			t.Errorf("after memory(%v) %s holds %q, want %q", st.args, st.key, claudetest.ReadNote(t, dir, st.key), st.disk)
		}
	}
	if claudetest.ReadNote(t, dir, "notes/ci.md") != "<missing>" {
		t.Error("rename left the old note on disk")
	}
}

func TestMemoryToolRefusals(t *testing.T) {
	dir := teamDir(t, map[string]string{"a.md": "one\none\n"})
	c := startServer(t, defaultOpts(dir))
	aws := scantest.AWSKey()
	tests := []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"command": "create", "path": "/memories/a.md", "file_text": "x"}, "already exists"},
		{map[string]any{"command": "create", "path": "/memories/../x.md", "file_text": "x"}, "is not a valid memory path: dot path segment"},
		{map[string]any{"command": "create", "path": "/tmp/x.md", "file_text": "x"}, "must start with /memories"},
		{map[string]any{"command": "create", "path": "/memories/x.xml", "file_text": "x"}, "does not sync"},
		{map[string]any{"command": "create", "path": "/memories/keys.md", "file_text": scantest.AWSNote(aws)}, scantest.AWSRule},
		{map[string]any{"command": "str_replace", "path": "/memories/a.md", "old_str": "one", "new_str": "two"}, "Multiple occurrences of old_str `one` in lines: 1, 2"},
		{map[string]any{"command": "str_replace", "path": "/memories/a.md", "old_str": "three", "new_str": "two"}, "did not appear verbatim"},
		{map[string]any{"command": "str_replace", "path": "/memories/a.md", "old_str": "one\none", "new_str": scantest.AWSNote(aws)}, scantest.AWSRule},
		{map[string]any{"command": "insert", "path": "/memories/a.md", "insert_line": 5, "insert_text": "x"}, "range [0, 2]"},
		{map[string]any{"command": "view", "path": "/memories/none.md"}, "does not exist"},
		{map[string]any{"command": "delete", "path": "/memories"}, "Cannot delete the /memories directory itself"},
		{map[string]any{"command": "rename", "old_path": "/memories/a.md", "new_path": "/memories/a.md"}, "already exists"},
		{map[string]any{"command": "rename", "old_path": "/memories/none.md", "new_path": "/memories/b.md"}, "does not exist"},
		{map[string]any{"command": "format"}, "command"},
	}
	for _, tt := range tests {
		msg := c.callErr(t, "memory", tt.args)
		if !strings.Contains(msg, tt.want) || strings.Contains(msg, aws) || strings.Contains(msg, "invalid_key") {
			t.Errorf("memory(%v) = %q, want an error holding %q and never the secret or an HTTP code", tt.args["command"], msg, tt.want)
		}
	}
	if got := claudetest.ReadNote(t, dir, "a.md"); got != "one\none\n" {
		t.Errorf("after refused commands a.md holds %q", got)
	}
	if got := claudetest.ReadNote(t, dir, "keys.md"); got != "<missing>" {
		t.Error("a create holding a secret reached the disk")
	}
}
