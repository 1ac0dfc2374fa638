package sqlite

import (
	"slices"
	"strings"

	"github.com/teammemd/teammemd/server/api"
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
// place, replacing the line of the same key or inserted in order. changes
// must be sorted with one line per key; lines is not modified.
func mergeLines(lines, changes []entryLine) []entryLine {
	out := make([]entryLine, 0, len(lines)+len(changes))
	for _, c := range changes {
		i, found := slices.BinarySearchFunc(lines, c.key, compareLineKey)
		out = append(out, lines[:i]...)
		out = append(out, c)
		if found {
			i++
		}
		lines = lines[i:]
	}
	return append(out, lines...)
}

// checksumLines returns the repo checksum (PROTOCOL.md section 3) of the
// sorted lines in one pass, building its input in buf. It returns buf for
// reuse.
func checksumLines(lines []entryLine, buf []byte) (string, []byte) {
	buf = buf[:0]
	for _, l := range lines {
		buf = api.AppendRepoLine(buf, l.key, l.sum, l.live())
	}
	return api.RepoChecksumOfLines(buf), buf
}
