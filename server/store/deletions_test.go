package store

import (
	"slices"
	"testing"
	"time"
)

func TestDeletionBoundCompact(t *testing.T) {
	now := time.UnixMilli(10_000_000)
	ms := func(ago time.Duration) int64 { return now.Add(-ago).UnixMilli() }
	deleted := map[string]int64{"a.md": ms(3 * time.Hour), "b.md": ms(2 * time.Hour), "c.md": ms(time.Hour), "d.md": ms(time.Hour), "e.md": ms(0)}
	tests := []struct {
		name  string
		bound DeletionBound
		want  []string
	}{
		{"no bound", DeletionBound{}, nil},
		{"older than 90 minutes", DeletionBound{KeepFor: 90 * time.Minute}, []string{"a.md", "b.md"}},
		{"exactly as old as KeepFor stays", DeletionBound{KeepFor: time.Hour}, []string{"a.md", "b.md"}},
		{"at most 3, oldest first", DeletionBound{Max: 3}, []string{"a.md", "b.md"}},
		{"at most 2, ties by key", DeletionBound{Max: 2}, []string{"a.md", "b.md", "c.md"}},
		{"both, age first", DeletionBound{KeepFor: 150 * time.Minute, Max: 4}, []string{"a.md"}},
		{"both, count first", DeletionBound{KeepFor: 150 * time.Minute, Max: 1}, []string{"a.md", "b.md", "c.md", "d.md"}},
		{"under the bound", DeletionBound{KeepFor: 4 * time.Hour, Max: 5}, nil},
	}
	for _, tt := range tests {
		got := tt.bound.Compact(deleted, now)
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: Compact() = %v, want %v", tt.name, got, tt.want)
		}
	}
}
