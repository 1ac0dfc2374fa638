package webui

import (
	"strings"
	"testing"
)

// apply rebuilds both sides from a diff.
func apply(lines []diffLine) (string, string) {
	var a, b []string
	for _, l := range lines {
		if l.Op != opAdd {
			a = append(a, l.Text)
		}
		if l.Op != opRemove {
			b = append(b, l.Text)
		}
	}
	return strings.Join(a, "\n"), strings.Join(b, "\n")
}

func TestDiffLines(t *testing.T) {
	tests := []struct {
		a, b  string
		edits int
	}{
		{"", "", 0},
		{"a\nb\nc\n", "a\nb\nc\n", 0},
		{"", "one\ntwo\n", 2},
		{"one\ntwo\n", "", 2},
		{"a\nb\nc\n", "a\nx\nc\n", 2},
		{"a\nb\nc\nd\n", "b\nc\nd\ne\n", 2},
		{"# Deploy\n\nrun make\n", "# Deploy\n\nrun make deploy\nthen check\n", 3},
	}
	for _, tt := range tests {
		got := diffLines(tt.a, tt.b)
		edits := 0
		for _, l := range got {
			if l.Op != opKeep {
				edits++
			}
		}
		a, b := apply(got)
		if a != strings.TrimSuffix(tt.a, "\n") || b != strings.TrimSuffix(tt.b, "\n") || edits != tt.edits {
			t.Errorf("diffLines(%q, %q) = %v: rebuilds %q, %q with %d edits, want %d", tt.a, tt.b, got, a, b, edits, tt.edits)
		}
	}
}

func TestDiffLinesBounded(t *testing.T) {
	var a, b strings.Builder
	for i := range maxDiffEdits {
		a.WriteString("a" + strings.Repeat("x", i%7) + "\n")
		b.WriteString("b" + strings.Repeat("y", i%5) + "\n")
	}
	got := diffLines(a.String(), b.String())
	if len(got) != 2*maxDiffEdits {
		t.Fatalf("diffLines(far apart) = %d lines, want %d", len(got), 2*maxDiffEdits)
	}
	if got[0].Op != opRemove || got[len(got)-1].Op != opAdd {
		t.Errorf("diffLines(far apart) = %v ... %v, want every old line removed, then every new one added", got[0], got[len(got)-1])
	}
}
