package main

import "testing"

func TestNoteText(t *testing.T) {
	tests := []struct{ i, size int }{{0, 1}, {7, 100}, {499, 242_000}}
	seen := map[string]bool{}
	for _, tt := range tests {
		got := noteText(tt.i, tt.size)
		if len(got) != tt.size {
			t.Errorf("len(noteText(%d, %d)) = %d, want %d", tt.i, tt.size, len(got), tt.size)
		}
		if seen[got] {
			t.Errorf("noteText(%d, %d) repeats an earlier text", tt.i, tt.size)
		}
		seen[got] = true
	}
	if a, b := noteText(1, 500), noteText(2, 500); a == b {
		t.Errorf("noteText(1, 500) = noteText(2, 500), want different texts")
	}
}
