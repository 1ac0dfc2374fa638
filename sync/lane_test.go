package memsync

import "testing"

func TestLaneFilesHolds(t *testing.T) {
	tests := []struct {
		files LaneFiles
		key   string
		want  bool
	}{
		{ProjectMemory, "MEMORY.md", true},
		{ProjectMemory, "notes/prefs.md", true},
		{ProjectMemory, "notes/team/x.md", true},
		{ProjectMemory, "team/x.md", false},
		{ProjectMemory, "logs/2026/x.md", false},
		{ProjectMemory, "sessions/x.md", false},
		{ProjectMemory, "proposals/x.md", false},
		{ProjectMemory, ".hidden.md", false},
		{ProjectMemory, "a/.git/x.md", false},
		{ProjectMemory, "x.json", false},
		{ProjectMemory, "prefs.20260101T000000.000Z.local.md", false},
		{ProjectMemory, "prefs.20260101T000000.000Z.server-2.md", false},
		{ProjectMemory, "prefs.2026.md", true},
		{UserFiles, "CLAUDE.md", true},
		{UserFiles, "rules/go.md", true},
		{UserFiles, "rules/deep/go.md", true},
		{UserFiles, "rules/a/b/c.md", true},
		{UserFiles, "rules/.drafts/go.md", false},
		{UserFiles, "rules/.go.md", false},
		{UserFiles, "rules/go.txt", false},
		{UserFiles, "rules", false},
		{UserFiles, "projects/p/memory/x.md", false},
		{UserFiles, "notes.md", false},
	}
	for _, tt := range tests {
		if got := tt.files.Holds(tt.key); got != tt.want {
			t.Errorf("LaneFiles(%d).Holds(%q) = %v, want %v", tt.files, tt.key, got, tt.want)
		}
	}
}

func TestEngineIgnores(t *testing.T) {
	tests := []struct {
		files LaneFiles
		p     string
		want  bool
	}{
		{ProjectMemory, "team", true},
		{ProjectMemory, "team/x.md", true},
		{ProjectMemory, "logs/a/b", true},
		{ProjectMemory, "notes", false},
		{ProjectMemory, "notes/x.md", false},
		{ProjectMemory, ".teammemd-tmp", true},
		{ProjectMemory, "x.20260101T000000.000Z.local.md", true},
		{UserFiles, "CLAUDE.md", false},
		{UserFiles, "rules", false},
		{UserFiles, "rules/go.md", false},
		{UserFiles, "rules/frontend", false},
		{UserFiles, "rules/frontend/react.md", false},
		{UserFiles, "rules/.drafts", true},
		{UserFiles, "projects", true},
		{UserFiles, "projects/p/memory/x.md", true},
		{UserFiles, "settings.json", true},
		{UserFiles, "todo.md", true},
	}
	for _, tt := range tests {
		e := &Engine{cfg: Config{Lane: "x", LaneFiles: tt.files}}
		if got := e.Ignores(tt.p); got != tt.want {
			t.Errorf("Ignores(%q) in lane %d = %v, want %v", tt.p, tt.files, got, tt.want)
		}
	}
	if (&Engine{}).Ignores("team/x.md") {
		t.Error("a team repo's engine ignores team/x.md, want nothing ignored")
	}
}
