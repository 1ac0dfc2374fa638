package scan

import (
	"iter"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A rule with keywords runs only on text that holds one of them. For most
// rules the expression itself also needs one of its keywords in every
// match, and a match reaches only so far from it: the reach computed here
// from the expression's syntax tree. The prefilter runs such a rule's
// expression only on the windows around its keywords' occurrences, and
// the whole detection only when one of them matches.

// unbounded is a length or a count without a bound.
const unbounded = 1 << 30

// span is the most bytes and the most newlines a match can hold.
type span struct{ bytes, lines int }

// reach bounds a match around a keyword occurrence it holds: how far it
// can start before the occurrence's first byte and end after it. The line
// bounds, when set, bound the same sides another way.
type reach struct {
	before, after         span
	beforeLine, afterLine lineBound
	follow                *follower
	// runBefore, when set, holds every byte (lower-cased) a match can hold
	// from its start to the keyword: the match starts within the run of
	// such bytes that ends at the keyword.
	runBefore *[256]bool
	// start, when set, is where a match's anchor can start: texts lists
	// the anchor's texts, and every match holds a match of tail (the
	// anchor and what follows it) starting where one of them is.
	start *anchorStart
}

// anchorStart tells where the anchor of a match starts and what follows.
type anchorStart struct {
	texts []string
	tail  *syntax.Regexp
}

// newAnchorStart is the anchorStart of the anchor subs[0] ... with texts;
// empty-width assertions that open it are dropped, since the tail is
// matched from where it starts without what comes before.
func newAnchorStart(texts []string, subs []*syntax.Regexp) *anchorStart {
	for len(subs) > 0 && emptyWidth(subs[0].Op) {
		subs = subs[1:]
	}
	tail := &syntax.Regexp{Op: syntax.OpConcat, Sub: append([]*syntax.Regexp{{Op: syntax.OpBeginText}}, subs...)}
	return &anchorStart{texts: texts, tail: tail}
}

func emptyWidth(op syntax.Op) bool {
	switch op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText,
		syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return true
	}
	return false
}

// runOf is the set of lower-cased ASCII bytes that parts can match, when
// each is a class, a literal or a repetition of one, or empty-width; nil
// otherwise. texts, the anchor's, add their bytes.
func runOf(parts []*syntax.Regexp, texts []string) *[256]bool {
	var set [256]bool
	for _, t := range texts {
		for i := 0; i < len(t); i++ {
			set[t[i]] = true
		}
	}
	for _, p := range parts {
		if !addBytes(&set, p) {
			return nil
		}
	}
	if set['\n'] {
		return nil
	}
	return &set
}

func addBytes(set *[256]bool, re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat, syntax.OpCapture:
		return addBytes(set, re.Sub[0])
	case syntax.OpLiteral, syntax.OpCharClass:
		texts, ok := expand(re)
		if !ok && re.Op == syntax.OpCharClass {
			return addClass(set, re.Rune)
		}
		for _, t := range texts {
			for i := 0; i < len(t); i++ {
				set[t[i]] = true
			}
		}
		return ok
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText,
		syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return true
	}
	return false
}

// addClass adds a class's runes, lower-cased, when all are ASCII or fold
// to it.
func addClass(set *[256]bool, ranges []rune) bool {
	for i := 0; i+1 < len(ranges); i += 2 {
		for r := ranges[i]; r <= ranges[i+1]; r++ {
			c, ok := lowerASCII(r)
			if !ok {
				return false
			}
			set[c] = true
		}
	}
	return true
}

// follower is a part every match holds after its keyword: one of its
// texts starts at most within bytes after the keyword occurrence's start,
// so a byte of first, lower-cased, is there.
type follower struct {
	first  [256]bool
	within int
}

// followerOf finds the first of the parts, at a bounded distance from
// reached bytes after the keyword, that lists as non-empty texts.
func followerOf(reached int, parts [][]string, expanded []bool, sizes []span) *follower {
	dist := reached
	for k, texts := range parts {
		if expanded[k] && !slices.Contains(texts, "") {
			f := &follower{within: dist}
			for _, t := range texts {
				f.first[t[0]] = true
			}
			return f
		}
		if dist = add(dist, sizes[k].bytes); dist >= unbounded {
			return nil
		}
	}
	return nil
}

// lineBound bounds one side of a match that has a part of unbounded length
// but without newlines: that part ends on the line it starts on. From the
// keyword occurrence, the side reaches at most bytes to where that part
// can start, to the end (or start) of that line, then tail bytes more.
type lineBound struct {
	set         bool
	bytes, tail int
}

// boundByLine computes a lineBound for a side that reaches bytes, then
// parts in order away from the keyword; unset when no part is unbounded,
// or when one after the first unbounded part is unbounded too.
func boundByLine(bytes int, parts iter.Seq2[int, span]) lineBound {
	b := lineBound{bytes: bytes}
	for _, p := range parts {
		switch {
		case p.bytes < unbounded && b.set:
			b.tail = add(b.tail, p.bytes)
		case p.bytes < unbounded:
			b.bytes = add(b.bytes, p.bytes)
		case p.lines == 0 && !b.set:
			b.set = true
		default:
			return lineBound{}
		}
	}
	return b
}

// maxExpansion bounds the list of texts expand builds.
const maxExpansion = 256

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

// reachOf says how far a match of re reaches around an occurrence of one
// of keywords (lower-case ASCII), when every match of re holds one; false
// when some match may hold none.
func reachOf(re *syntax.Regexp, keywords []string) (reach, bool) {
	if texts, ok := expand(re); ok && allHoldKeyword(texts, keywords) {
		s := sizeOf(re)
		return reach{before: s, after: s, start: newAnchorStart(texts, []*syntax.Regexp{re})}, true
	}
	switch re.Op {
	case syntax.OpCapture:
		return reachOf(re.Sub[0], keywords)
	case syntax.OpConcat:
		return reachOfConcat(re.Sub, keywords)
	case syntax.OpAlternate:
		var out reach
		for _, sub := range re.Sub {
			r, ok := reachOf(sub, keywords)
			if !ok {
				return reach{}, false
			}
			out = reach{before: out.before.or(r.before), after: out.after.or(r.after)}
		}
		return out, true
	case syntax.OpPlus:
		return reachOfRepeat(re.Sub[0], unbounded, keywords)
	case syntax.OpRepeat:
		if re.Min < 1 {
			return reach{}, false
		}
		n := re.Max
		if n < 0 {
			n = unbounded
		}
		return reachOfRepeat(re.Sub[0], n, keywords)
	}
	return reach{}, false
}

// reachOfRepeat is the reach of one to n repetitions of sub.
func reachOfRepeat(sub *syntax.Regexp, n int, keywords []string) (reach, bool) {
	r, ok := reachOf(sub, keywords)
	if !ok {
		return reach{}, false
	}
	others := sizeOf(sub).times(n - 1)
	return reach{before: r.before.plus(others), after: r.after.plus(others)}, true
}

// reachOfConcat tries each run of consecutive parts that lists as texts
// holding a keyword, and each part that has a reach of its own, and keeps
// the narrowest.
func reachOfConcat(subs []*syntax.Regexp, keywords []string) (reach, bool) {
	sizes := make([]span, len(subs))
	parts := make([][]string, len(subs))
	expanded := make([]bool, len(subs))
	for i, sub := range subs {
		sizes[i] = sizeOf(sub)
		parts[i], expanded[i] = expand(sub)
	}
	sum := func(from, to int) span {
		var s span
		for _, x := range sizes[from:to] {
			s = s.plus(x)
		}
		return s
	}
	var best reach
	found := false
	// consider takes the reach r of subs[i:j] and, when known, the bytes
	// run from the start of the concatenation to the keyword.
	consider := func(r reach, i, j int, run *[256]bool) {
		out := reach{before: r.before.plus(sum(0, i)), after: r.after.plus(sum(j, len(subs))), runBefore: run, start: r.start}
		if r.before.bytes < unbounded {
			out.beforeLine = boundByLine(r.before.bytes, slices.Backward(sizes[:i]))
		}
		if r.after.bytes < unbounded {
			out.afterLine = boundByLine(r.after.bytes, slices.All(sizes[j:]))
			out.follow = followerOf(r.after.bytes, parts[j:], expanded[j:], sizes[j:])
		}
		r = out
		if !found || r.cost() < best.cost() {
			best, found = r, true
		}
	}
	for i := range subs {
		if r, ok := reachOf(subs[i], keywords); ok {
			var run *[256]bool
			if i == 0 {
				run = r.runBefore // nothing of this concatenation precedes it
			}
			consider(r, i, i+1, run)
		}
		texts := []string{""}
		for j := i; j < len(subs) && expanded[j]; j++ {
			var ok bool
			if texts, ok = product(texts, parts[j]); !ok {
				break
			}
			if allHoldKeyword(texts, keywords) {
				s := sum(i, j+1)
				consider(reach{before: s, after: s, start: newAnchorStart(texts, subs[i:])}, i, j+1, runOf(subs[:i], texts))
			}
		}
	}
	return best, found
}

// cost ranks reaches: a window of a few hundred bytes beats one of whole
// lines, which beats the whole text.
func (r reach) cost() int {
	c := sideCost(r.before, r.beforeLine) + sideCost(r.after, r.afterLine)
	if r.follow == nil {
		c += 50
	}
	if r.runBefore == nil {
		c += 50
	}
	if r.start == nil {
		c += 200
	}
	return c
}

func sideCost(s span, l lineBound) int {
	switch {
	case s.bytes < unbounded:
		return s.bytes
	case l.set:
		return 100 + l.bytes + l.tail
	case s.lines < unbounded:
		return 1000 * (s.lines + 1)
	}
	return unbounded
}

func allHoldKeyword(texts, keywords []string) bool {
	if len(texts) == 0 {
		return false
	}
	for _, t := range texts {
		if !holdsKeyword(t, keywords) {
			return false
		}
	}
	return true
}

func holdsKeyword(text string, keywords []string) bool {
	for _, k := range keywords {
		if k != "" && strings.Contains(text, k) {
			return true
		}
	}
	return false
}
