package scan

import (
	"regexp/syntax"
	"slices"
	"strings"
	"unicode/utf8"
)

// The texts here are what short parts of an expression match, lower-cased:
// the reach analysis looks in them for the rule's keywords.

// maxExpansion bounds the list of texts expand builds.
const maxExpansion = 256

// foldsToASCII maps the runes outside ASCII that Go's regexp case folding
// or strings.ToLower turn into an ASCII letter to that letter. A text that
// holds one of them is not prefiltered.
var foldsToASCII = map[rune]byte{
	'\u0130': 'i', // LATIN CAPITAL LETTER I WITH DOT ABOVE: ToLower gives 'i'
	'\u017f': 's', // LATIN SMALL LETTER LONG S: folds with 's'
	'\u212a': 'k', // KELVIN SIGN: folds with 'k'
}

// lowerASCII is the lower-case ASCII byte a rune of the expression matches
// in the lower-cased text, or false when it is outside ASCII.
func lowerASCII(r rune) (byte, bool) {
	if r < utf8.RuneSelf {
		b := byte(r)
		if 'A' <= b && b <= 'Z' {
			b += 'a' - 'A'
		}
		return b, true
	}
	b, ok := foldsToASCII[r]
	return b, ok
}

// countTexts is at least the number of texts expand lists for re, or more
// than maxExpansion; it lets expand give up before building long lists.
func countTexts(re *syntax.Regexp) int {
	switch re.Op {
	case syntax.OpLiteral:
		return 1
	case syntax.OpCharClass:
		n := 0
		for i := 0; i+1 < len(re.Rune); i += 2 {
			n = add(n, int(min(re.Rune[i+1]-re.Rune[i], unbounded))+1)
		}
		return n
	case syntax.OpCapture:
		return countTexts(re.Sub[0])
	case syntax.OpQuest:
		return add(countTexts(re.Sub[0]), 1)
	case syntax.OpRepeat:
		if re.Max < 0 || re.Max > 16 {
			return unbounded
		}
		c, n, power := countTexts(re.Sub[0]), 0, 1
		for k := 0; k <= re.Max; k++ {
			if k >= re.Min {
				n = add(n, power)
			}
			power = mul(power, c)
		}
		return n
	case syntax.OpConcat:
		n := 1
		for _, sub := range re.Sub {
			n = mul(n, countTexts(sub))
		}
		return n
	case syntax.OpAlternate:
		n := 0
		for _, sub := range re.Sub {
			n = add(n, countTexts(sub))
		}
		return n
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText,
		syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return 1
	}
	return unbounded
}

// expand lists every text re matches, lower-cased, when there are at most
// maxExpansion and all are ASCII; empty-width assertions are ignored, so
// the list may hold more than re matches, never less.
func expand(re *syntax.Regexp) ([]string, bool) {
	if countTexts(re) > maxExpansion {
		return nil, false
	}
	return expandTexts(re)
}

func expandTexts(re *syntax.Regexp) ([]string, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		var b strings.Builder
		for _, r := range re.Rune {
			c, ok := lowerASCII(r)
			if !ok {
				return nil, false
			}
			b.WriteByte(c)
		}
		return []string{b.String()}, true
	case syntax.OpCharClass:
		return expandClass(re.Rune)
	case syntax.OpCapture:
		return expandTexts(re.Sub[0])
	case syntax.OpQuest:
		sub, ok := expandTexts(re.Sub[0])
		return union([]string{""}, sub), ok
	case syntax.OpRepeat:
		return expandRepeat(re)
	case syntax.OpConcat:
		return expandConcat(re.Sub)
	case syntax.OpAlternate:
		var out []string
		for _, sub := range re.Sub {
			s, ok := expandTexts(sub)
			if !ok {
				return nil, false
			}
			if out = union(out, s); len(out) > maxExpansion {
				return nil, false
			}
		}
		return out, true
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText,
		syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return []string{""}, true
	}
	return nil, false
}

func expandClass(ranges []rune) ([]string, bool) {
	var seen [256]bool
	var out []string
	for i := 0; i+1 < len(ranges); i += 2 {
		if ranges[i+1]-ranges[i] > maxExpansion {
			return nil, false
		}
		for r := ranges[i]; r <= ranges[i+1]; r++ {
			c, ok := lowerASCII(r)
			if !ok {
				return nil, false
			}
			if !seen[c] {
				seen[c] = true
				out = append(out, string(c))
			}
		}
	}
	return out, len(out) > 0
}

func expandRepeat(re *syntax.Regexp) ([]string, bool) {
	if re.Max < 0 || re.Max > 16 {
		return nil, false
	}
	sub, ok := expandTexts(re.Sub[0])
	if !ok {
		return nil, false
	}
	var out []string
	cur := []string{""}
	for n := 0; n <= re.Max; n++ {
		if n >= re.Min {
			if out = union(out, cur); len(out) > maxExpansion {
				return nil, false
			}
		}
		if cur, ok = product(cur, sub); !ok {
			return nil, false
		}
	}
	return out, true
}

func expandConcat(subs []*syntax.Regexp) ([]string, bool) {
	out := []string{""}
	for _, sub := range subs {
		s, ok := expandTexts(sub)
		if !ok {
			return nil, false
		}
		if out, ok = product(out, s); !ok {
			return nil, false
		}
	}
	return out, true
}

func product(a, b []string) ([]string, bool) {
	if len(a)*len(b) > maxExpansion {
		return nil, false
	}
	out := make([]string, 0, len(a)*len(b))
	for _, x := range a {
		for _, y := range b {
			out = append(out, x+y)
		}
	}
	return out, true
}

func union(a, b []string) []string {
	if len(a)*len(b) <= 64 {
		out := a
		for _, s := range b {
			if !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
		return out
	}
	seen := make(map[string]bool, len(a)+len(b))
	for _, s := range a {
		seen[s] = true
	}
	out := a
	for _, s := range b {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
