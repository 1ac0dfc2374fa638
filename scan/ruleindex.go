package scan

import "slices"

// ruleIndex lists the rules a text can reach by the keywords found in it,
// so that a pass looks at those rules alone rather than every rule: a
// note with no keyword in it (most notes) touches none of the rules that
// have keywords. After a pause, when nothing of the scanner is in the
// processor's caches any more, each rule looked at costs its own cache
// misses, and a scan of a short note touched them all.
type ruleIndex struct {
	byKeyword [][]int // for each keyword's pattern number, the rules holding it
	unkeyed   []int   // the rules a text can reach without any of their ASCII keywords
}

// newRuleIndex indexes rules, whose ASCII keywords are numbered below n.
// A rule that reports only as another's requirement is in no list: a pass
// never runs it on its own (applies).
func newRuleIndex(rules []*filterRule, n int) ruleIndex {
	ix := ruleIndex{byKeyword: make([][]int, n)}
	for i, fr := range rules {
		switch {
		case fr.base.SkipReport:
		case len(fr.keywords) == 0 || len(fr.other) > 0:
			ix.unkeyed = append(ix.unkeyed, i)
		default:
			for _, k := range fr.keywords {
				ix.byKeyword[k] = append(ix.byKeyword[k], i)
			}
		}
	}
	return ix
}

// reachable lists, in rule order, the rules a pass can run: every rule
// that applies to its text is in it.
func (ix ruleIndex) reachable(ps *pass) []int {
	if len(ps.hits) == 0 {
		return ix.unkeyed
	}
	out := slices.Clone(ix.unkeyed)
	for k := range ps.hits {
		out = append(out, ix.byKeyword[k]...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}
