package store

import (
	"cmp"
	"maps"
	"slices"
	"strings"
	"time"
)

// DeletionBound bounds the deletion markers (tombstones) a repo keeps. A
// write compacts the markers it finds over the bound: it drops them from
// the repo, keeps the deletions' revisions in history, and records its own
// version as the repo's CompactedThrough, which tells a client that synced
// at an older version that a key it knew may have been deleted without a
// marker left to say so.
type DeletionBound struct {
	// KeepFor drops the markers older than this at the write's time; 0
	// keeps them however old.
	KeepFor time.Duration
	// Max keeps at most this many markers, dropping the oldest first; 0
	// keeps any number.
	Max int
}

// Compact returns the keys of deleted (key to deletion time, Unix ms)
// whose markers a write at now drops, in byte order: those older than
// KeepFor, then the oldest beyond Max (the earlier deletion first, then
// the key in byte order).
func (b DeletionBound) Compact(deleted map[string]int64, now time.Time) []string {
	keys := slices.SortedFunc(maps.Keys(deleted), func(x, y string) int {
		return cmp.Or(cmp.Compare(deleted[x], deleted[y]), strings.Compare(x, y))
	})
	n := 0
	if b.KeepFor > 0 {
		cutoff := now.Add(-b.KeepFor).UnixMilli()
		for n < len(keys) && deleted[keys[n]] < cutoff {
			n++
		}
	}
	if b.Max > 0 && len(keys)-n > b.Max {
		n = len(keys) - b.Max
	}
	dropped := keys[:n]
	slices.Sort(dropped)
	return dropped
}
