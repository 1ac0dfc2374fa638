package scan

import (
	"iter"
	"regexp/syntax"
	"slices"
	"strings"
)

// A rule with keywords runs only on text that holds one of them. For most
// rules the expression itself also needs one of its keywords in every
// match, and a match reaches only so far from it: the reach computed here
// from the expression's syntax tree. The prefilter runs such a rule's
// expression only on the windows around its keywords' occurrences, and
// the whole detection only when one of them matches.

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
