package claude

import "testing"

func TestProjectEvent(t *testing.T) {
	root := "/h/.claude/projects"
	tests := []struct {
		path string
		want bool
	}{
		{root, true},
		{root + "/-src-app", true},
		{root + "/-src-app/memory", true},
		{root + "/-src-app/memory/team", true},
		{root + "/-src-app/0b5c2f7e.jsonl", true},
		{root + "/-src-app/notes.txt", false},
		{root + "/-src-app/memory/team/MEMORY.md", false},
		{root + "/-src-app/memory/MEMORY.md", false},
		{"/h/.claude/settings.json", false},
		{"/h/.claude/projectsx", false},
	}
	for _, tt := range tests {
		if got := projectEvent(root, tt.path); got != tt.want {
			t.Errorf("projectEvent(%q) = %v, want %v", tt.path, got, tt.want)
		}
	}
}
