package sqlite

import (
	"slices"
	"strings"
)

// entryLine is one key of a repo's checksum view: a live entry with its
// entry checksum, or a tombstone (sum empty) with its deletion time.
type entryLine struct {
	key       string
	sum       string // entry checksum; empty for a tombstone
	deletedAt int64  // Unix ms, for a tombstone
}

func (l entryLine) live() bool { return l.sum != "" }

func compareLineKey(l entryLine, key string) int { return strings.Compare(l.key, key) }

func compareLines(a, b entryLine) int { return strings.Compare(a.key, b.key) }

// sortLines puts lines in byte order of their keys, the order of the repo
// checksum.
func sortLines(lines []entryLine) {
	if !slices.IsSortedFunc(lines, compareLines) {
		slices.SortFunc(lines, compareLines)
	}
}

// findLine returns the line of key in the sorted lines.
func findLine(lines []entryLine, key string) (entryLine, bool) {
	i, ok := slices.BinarySearchFunc(lines, key, compareLineKey)
	if !ok {
		return entryLine{}, false
	}
	return lines[i], true
}

// mergeLines returns a new sorted slice: lines with each of changes put in
// place, replacing the line of the same key or inserted in order, and the
// index of the first change in it: the lines before are those of lines.
// changes must be sorted with one line per key; lines is not modified.
func mergeLines(lines, changes []entryLine) ([]entryLine, int) {
	out := make([]entryLine, 0, len(lines)+len(changes))
	first := len(lines)
	for n, c := range changes {
		i, found := slices.BinarySearchFunc(lines, c.key, compareLineKey)
		if n == 0 {
			first = i
		}
		out = append(out, lines[:i]...)
		out = append(out, c)
		if found {
			i++
		}
		lines = lines[i:]
	}
	return append(out, lines...), first
}
