package api

import (
	"strings"
	"testing"
)

func TestValidStoreID(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"0123456789abcdef0123456789abcdef", true},
		{"A-b_9", true},
		{strings.Repeat("a", 64), true},
		{"", false},
		{strings.Repeat("a", 65), false},
		{"a b", false},
		{"a\nb", false},
		{"a/b", false},
		{"é", false},
	}
	for _, tt := range tests {
		if got := ValidStoreID(tt.in); got != tt.want {
			t.Errorf("ValidStoreID(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}
