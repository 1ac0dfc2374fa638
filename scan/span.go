package scan

import (
	"regexp/syntax"
	"unicode"
	"unicode/utf8"
)

// The spans here bound the bytes and newlines a match of a part of an
// expression can hold.

// unbounded is a length or a count without a bound.
const unbounded = 1 << 30

// span is the most bytes and the most newlines a match can hold.
type span struct{ bytes, lines int }

func add(a, b int) int { return min(a+b, unbounded) }

func mul(a, n int) int {
	if a == 0 || n == 0 {
		return 0
	}
	if n >= unbounded || a >= unbounded/n {
		return unbounded
	}
	return a * n
}

func (s span) plus(t span) span { return span{add(s.bytes, t.bytes), add(s.lines, t.lines)} }

func (s span) times(n int) span { return span{mul(s.bytes, n), mul(s.lines, n)} }

func (s span) or(t span) span { return span{max(s.bytes, t.bytes), max(s.lines, t.lines)} }

// sizeOf is the span of any match of re.
func sizeOf(re *syntax.Regexp) span {
	switch re.Op {
	case syntax.OpLiteral:
		var s span
		for _, r := range re.Rune {
			s.bytes += runeWidth(r, re.Flags&syntax.FoldCase != 0)
			if r == '\n' {
				s.lines++
			}
		}
		return s
	case syntax.OpCharClass:
		return classSize(re.Rune)
	case syntax.OpAnyCharNotNL:
		return span{utf8.UTFMax, 0}
	case syntax.OpAnyChar:
		return span{utf8.UTFMax, 1}
	case syntax.OpCapture, syntax.OpQuest:
		return sizeOf(re.Sub[0])
	case syntax.OpStar, syntax.OpPlus:
		return sizeOf(re.Sub[0]).times(unbounded)
	case syntax.OpRepeat:
		if re.Max < 0 {
			return sizeOf(re.Sub[0]).times(unbounded)
		}
		return sizeOf(re.Sub[0]).times(re.Max)
	case syntax.OpConcat:
		var s span
		for _, sub := range re.Sub {
			s = s.plus(sizeOf(sub))
		}
		return s
	case syntax.OpAlternate:
		var s span
		for _, sub := range re.Sub {
			s = s.or(sizeOf(sub))
		}
		return s
	}
	return span{} // empty-width assertions, empty and no match
}

// runeWidth is the most bytes r takes in the text, counting the runes a
// case-insensitive literal also matches.
func runeWidth(r rune, fold bool) int {
	w := utf8RuneLen(r)
	if fold {
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			w = max(w, utf8RuneLen(f))
		}
	}
	return w
}

func utf8RuneLen(r rune) int {
	if n := utf8.RuneLen(r); n > 0 {
		return n
	}
	return utf8.UTFMax
}

// classSize is the span of one rune of a class given as sorted ranges.
func classSize(ranges []rune) span {
	var s span
	for i := 0; i+1 < len(ranges); i += 2 {
		s.bytes = max(s.bytes, utf8RuneLen(min(ranges[i+1], unicode.MaxRune)))
		if ranges[i] <= '\n' && '\n' <= ranges[i+1] {
			s.lines = 1
		}
	}
	return s
}
