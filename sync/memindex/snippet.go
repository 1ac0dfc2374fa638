package memindex

import (
	"strings"
	"unicode/utf8"
)

// A snippet is at most maxSnippet bytes of one line, starting at most
// snippetLead bytes before the line's first match.
const (
	maxSnippet  = 200
	snippetLead = 60
)

// snippet returns the 1-based number of the line of text that matches the
// most query words (the first of them on a tie) and that line cut around
// its first match; 0 and "" when no line matches.
func snippet(text string, qs []string) (int, string) {
	best, bestCount, bestAt, bestText := 0, 0, 0, ""
	n := 0
	for line := range strings.Lines(text) {
		n++
		if count, at := lineMatches(line, qs); count > bestCount {
			best, bestCount, bestAt, bestText = n, count, at, line
		}
	}
	if best == 0 {
		return 0, ""
	}
	return best, cut(strings.TrimRight(bestText, "\r\n"), bestAt)
}

// lineMatches counts the query words line matches, exactly or as a
// prefix, and returns the offset of the first word that matches.
func lineMatches(line string, qs []string) (count, first int) {
	first = -1
	seen := make([]bool, len(qs))
	eachTermAt(line, func(t string, at int) {
		for i, q := range qs {
			if seen[i] || !(t == q || len(q) >= minPrefix && strings.HasPrefix(t, q)) {
				continue
			}
			seen[i] = true
			count++
			if first < 0 {
				first = at
			}
		}
	})
	return count, first
}

// cut returns the part of line around offset at, marked with "…" where
// it was cut.
func cut(line string, at int) string {
	start := max(0, at-snippetLead)
	for start > 0 && !utf8.RuneStart(line[start]) {
		start--
	}
	end := min(len(line), start+maxSnippet)
	for end < len(line) && !utf8.RuneStart(line[end]) {
		end--
	}
	s := strings.TrimSpace(line[start:end])
	if start > 0 {
		s = "…" + s
	}
	if end < len(line) {
		s += "…"
	}
	return s
}
