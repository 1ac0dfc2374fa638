package watch

import (
	"strings"
	"testing"
)

var ignoreTests = []struct {
	name string
	want bool
}{
	{"MEMORY.md", false},
	{"notes.txt", false},
	{"design", false},
	{"4913x", false},
	{"#", false},
	{"a#b#", false},
	{"", true},
	{".hidden.md", true},
	{".git", true},
	{".teammemd-tmp-123", true},
	{".#MEMORY.md", true},
	{"#MEMORY.md#", true},
	{"MEMORY.md~", true},
	{"MEMORY.md.swp", true},
	{".MEMORY.md.swx", true},
	{"MEMORY.md.swo", true},
	{"4913", true},
	{"notes.tmp", true},
	{"notes.TMP", true},
	{"download.md.crdownload", true},
	{"MEMORY.md___jb_tmp___", true},
	{"MEMORY.md.bak", true},
	{"MEMORY.md.orig", true},
	{"file.part", true},
}

func TestIgnored(t *testing.T) {
	for _, tt := range ignoreTests {
		if got := Ignored(tt.name); got != tt.want {
			t.Errorf("Ignored(%q) = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestIgnoredPath(t *testing.T) {
	tests := []struct {
		rel  string
		want bool
	}{
		{"MEMORY.md", false},
		{"sub/dir/notes.md", false},
		{".git/config", true},
		{"sub/.cache/x.md", true},
		{"sub/x.md.swp", true},
		{"sub//x.md", true},
	}
	for _, tt := range tests {
		if got := IgnoredPath(tt.rel); got != tt.want {
			t.Errorf("IgnoredPath(%q) = %v, want %v", tt.rel, got, tt.want)
		}
	}
}

func FuzzIgnored(f *testing.F) {
	for _, tt := range ignoreTests {
		f.Add(tt.name)
	}
	f.Fuzz(func(t *testing.T, name string) {
		got := Ignored(name)
		if strings.HasPrefix(name, ".") && !got {
			t.Errorf("Ignored(%q) = false, want true for a hidden name", name)
		}
		// A path made of one segment is ignored exactly when its name is.
		if !strings.Contains(name, "/") && IgnoredPath(name) != got {
			t.Errorf("IgnoredPath(%q) = %v, want %v", name, !got, got)
		}
		// Appending a swap suffix always ignores.
		if !Ignored(name + ".swp") {
			t.Errorf("Ignored(%q) = false, want true", name+".swp")
		}
	})
}
