package scan

import (
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/zricethezav/gitleaks/v8/config"
)

// prefilter decides which rules can report anything on a text, with one
// Aho-Corasick pass over the lower-cased text for every rule's keywords.
// A rule can report only when gitleaks would run it (it has no keywords,
// or one of them is in the text) and its expression matches somewhere in
// the text; the prefilter tests that on the windows its keywords' reach
// allows (see reach.go), else on the whole text. It never leaves out a
// rule that has findings, so the detection restricted to the rules it
// keeps finds exactly what the full ruleset finds.
type prefilter struct {
	keywords []string      // by keyword number
	search   keywordSearch // finds every keyword's every occurrence
	rules    []*filterRule
	byID     map[string]*filterRule
	index    ruleIndex  // the rules a text can reach, by its keywords
	memo     *matchMemo // anchors' tails on their texts, for every scan
}

// filterRule is one rule as the prefilter sees it.
type filterRule struct {
	base     config.Rule // without its expression
	expr     string      // the expression, "" for a path-only rule
	keywords []int       // pattern numbers of its ASCII keywords
	other    []string    // its keywords outside ASCII, tested on strings.ToLower
	windowed bool        // every match holds a keyword, within reach
	reach    reach

	ruleOnce sync.Once
	rule     config.Rule // base with its expression, from compiled

	tailOnce sync.Once
	tail     *regexp.Regexp // reach.start's tail, compiled on first use
}

// compiled is the rule with its expression, compiled on first use.
func (fr *filterRule) compiled() config.Rule {
	fr.ruleOnce.Do(func() {
		fr.rule = fr.base
		if fr.expr != "" {
			fr.rule.Regex = compileExpr(fr.expr)
		}
	})
	return fr.rule
}

func newPrefilter(rs compiledRuleset) (*prefilter, error) {
	p := &prefilter{byID: make(map[string]*filterRule, len(rs.Rules)), memo: newMatchMemo()}
	index := map[string]int{}
	for _, id := range rs.OrderedRules {
		r := rs.Rules[id]
		expr, hasExpr := rs.exprs[id]
		fr := &filterRule{base: r, expr: expr.source}
		var ascii []string
		for _, k := range r.Keywords {
			if !isASCII(k) {
				fr.other = append(fr.other, k)
				continue
			}
			n, ok := index[k]
			if !ok {
				n = len(p.keywords)
				index[k] = n
				p.keywords = append(p.keywords, k)
			}
			fr.keywords = append(fr.keywords, n)
			ascii = append(ascii, k)
		}
		if hasExpr && len(fr.other) == 0 && len(ascii) > 0 {
			fr.reach, fr.windowed = reachOf(expr.parsed, ascii)
		}
		p.rules = append(p.rules, fr)
		p.byID[id] = fr
	}
	search, err := newKeywordSearch(p.keywords)
	if err != nil {
		return nil, err
	}
	p.search = search
	p.index = newRuleIndex(p.rules, len(p.keywords))
	return p, nil
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// pass is the prefilter's view of one text: its lower-cased bytes, the
// keyword occurrences by keyword, and its newlines.
type pass struct {
	text      string
	lower     []byte
	unusual   bool          // holds a rune that lower-cases or folds to ASCII
	hits      map[int][]int // start offsets of each keyword present, as gitleaks decides it
	newlines  []int
	indexedNL bool
	memo      *matchMemo
}

// candidates adds to keep the ids of the rules that can report anything
// on text, a file at path ("" for none). decoded says text is a decoding
// pass, where gitleaks reports only what overlaps a decoded part: there a
// rule is kept when its expression matches at all.
func (p *prefilter) candidates(text, path string, decoded bool, global []*config.Allowlist, keep map[string]bool) {
	ps := p.newPass(text)
	for _, i := range p.index.reachable(ps) {
		fr := p.rules[i]
		if keep[fr.base.RuleID] || !fr.applies(ps, path) {
			continue
		}
		var may bool
		switch {
		case ps.unusual, fr.expr == "":
			may = true
		case decoded:
			may = fr.matches(ps, p.keywords)
		default:
			may = fr.mayReport(ps, p.keywords, global)
		}
		if may {
			keep[fr.base.RuleID] = true
		}
	}
}

func (p *prefilter) newPass(text string) *pass {
	ps := &pass{
		text:  text,
		memo:  p.memo,
		lower: make([]byte, len(text)),
	}
	nonASCII := false
	for i := 0; i < len(text); i++ {
		c := text[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		} else if c >= utf8.RuneSelf {
			nonASCII = true
		}
		ps.lower[i] = c
	}
	if nonASCII {
		ps.unusual = hasUnusualRune(text)
	}
	lower := ps.lower
	if ps.unusual {
		// Keywords as gitleaks finds them, on strings.ToLower; the
		// positions are not used.
		lower = []byte(strings.ToLower(text))
	}
	ps.hits = p.search.occurrences(lower)
	return ps
}

func hasUnusualRune(text string) bool {
	for _, r := range text {
		if _, ok := foldsToASCII[r]; ok {
			return true
		}
	}
	return false
}

// applies says whether gitleaks runs the rule on this text at path: a
// rule that reports only as another's requirement never does on its own,
// a rule with keywords needs one of them, a rule with a path needs it.
func (fr *filterRule) applies(ps *pass, path string) bool {
	r := fr.base
	if r.SkipReport {
		return false
	}
	if len(r.Keywords) > 0 && !fr.keywordFound(ps) {
		return false
	}
	return r.Path == nil || r.Path.MatchString(path)
}

func (fr *filterRule) keywordFound(ps *pass) bool {
	for _, k := range fr.keywords {
		if _, ok := ps.hits[k]; ok {
			return true
		}
	}
	if len(fr.other) == 0 {
		return false
	}
	lower := strings.ToLower(ps.text)
	for _, k := range fr.other {
		if strings.Contains(lower, k) {
			return true
		}
	}
	return false
}

// matches says whether the rule's expression matches somewhere in the
// text: in one of the windows where its matches can be.
func (fr *filterRule) matches(ps *pass, keywords []string) bool {
	for _, w := range fr.windows(ps, keywords) {
		if fr.compiled().Regex.MatchString(ps.text[w.start:w.end]) {
			return true
		}
	}
	return false
}

// windows are the parts of the text, sorted by start, that hold every
// match of the rule, each around one of its keywords' occurrences; or,
// for a rule without a reach, the whole text.
func (fr *filterRule) windows(ps *pass, keywords []string) []window {
	if !fr.windowed {
		return []window{{0, len(ps.text)}}
	}
	var wins []window
	for _, k := range fr.keywords {
		for _, at := range ps.hits[k] {
			if !ps.followed(at, fr.reach.follow) {
				continue
			}
			if w := ps.window(at, fr.reach); fr.anchorMatches(ps, keywords[k], at, w.end) {
				wins = append(wins, w)
			}
		}
	}
	slices.SortFunc(wins, func(a, b window) int { return a.start - b.start })
	return wins
}

type window struct{ start, end int }

// windowMargin keeps a byte of context (a rune's worth) on each side of
// any match a window holds, for \b, ^ and $ to see what they see in the
// whole text.
const windowMargin = utf8.UTFMax

// window is the part of the text that holds every match reaching r around
// the keyword occurrence at.
func (ps *pass) window(at int, r reach) window {
	start, end := 0, len(ps.text)
	if r.before.bytes < unbounded {
		start = max(start, at-r.before.bytes)
	}
	if r.before.lines < unbounded {
		start = max(start, ps.lineBoundBefore(at, r.before.lines))
	}
	if r.after.bytes < unbounded {
		end = min(end, at+r.after.bytes)
	}
	if r.after.lines < unbounded {
		end = min(end, ps.lineBoundAfter(at, r.after.lines))
	}
	if r.runBefore != nil {
		run := at
		for run > 0 && r.runBefore[ps.lower[run-1]] {
			run--
		}
		start = max(start, run)
	}
	if b := r.beforeLine; b.set {
		start = max(start, ps.lineStart(at-b.bytes)-b.tail)
	}
	if b := r.afterLine; b.set {
		end = min(end, ps.lineEnd(at+b.bytes)+b.tail)
	}
	return window{max(0, start-windowMargin), min(len(ps.text), end+windowMargin)}
}

func (ps *pass) indexNewlines() {
	if ps.indexedNL {
		return
	}
	ps.indexedNL = true
	for i, c := range ps.lower {
		if c == '\n' {
			ps.newlines = append(ps.newlines, i)
		}
	}
}

// lineBoundBefore is the offset of the newline before which no match can
// start that holds at most n newlines before at, or 0.
func (ps *pass) lineBoundBefore(at, n int) int {
	ps.indexNewlines()
	i, _ := slices.BinarySearch(ps.newlines, at) // newlines[:i] are before at
	if i-n-1 < 0 {
		return 0
	}
	return ps.newlines[i-n-1]
}

// lineBoundAfter is the offset of the newline after which no match can end
// that holds at most n newlines from at on, or the text's length.
func (ps *pass) lineBoundAfter(at, n int) int {
	ps.indexNewlines()
	i, _ := slices.BinarySearch(ps.newlines, at) // newlines[i:] are at or after at
	if i+n >= len(ps.newlines) {
		return len(ps.text)
	}
	return ps.newlines[i+n] + 1
}

// anchorMatches says whether the rule's tail matches from a start of its
// anchor that holds keyword at at, up to end; true for a rule whose reach
// does not say where its anchor starts.
func (fr *filterRule) anchorMatches(ps *pass, keyword string, at, end int) bool {
	st := fr.reach.start
	if st == nil {
		return true
	}
	tail := fr.compiledTail()
	if tail == nil {
		return true
	}
	for _, t := range st.texts {
		for o := strings.Index(t, keyword); o >= 0; {
			from := at - o
			if from >= 0 && from+len(t) <= end && string(ps.lower[from:from+len(t)]) == t &&
				ps.memo.MatchString(tail, ps.text[from:end]) {
				return true
			}
			next := strings.Index(t[o+1:], keyword)
			if next < 0 {
				break
			}
			o += 1 + next
		}
	}
	return false
}

// compiledTail compiles the tail of the rule's anchor once; nil if it
// does not compile, and then the tail is not tested.
func (fr *filterRule) compiledTail() *regexp.Regexp {
	fr.tailOnce.Do(func() {
		fr.tail, _ = regexp.Compile(fr.reach.start.tail.String())
	})
	return fr.tail
}

// followed says whether the keyword occurrence at has f's part after it.
func (ps *pass) followed(at int, f *follower) bool {
	if f == nil {
		return true
	}
	for _, c := range ps.lower[at:min(len(ps.lower), at+f.within+1)] {
		if f.first[c] {
			return true
		}
	}
	return false
}

// lineStart is the offset just after the last newline before at, or 0.
func (ps *pass) lineStart(at int) int {
	if at <= 0 {
		return 0
	}
	ps.indexNewlines()
	i, _ := slices.BinarySearch(ps.newlines, at)
	if i == 0 {
		return 0
	}
	return ps.newlines[i-1] + 1
}

// lineEnd is the offset of the first newline at or after at, or the
// text's length.
func (ps *pass) lineEnd(at int) int {
	ps.indexNewlines()
	i, _ := slices.BinarySearch(ps.newlines, at)
	if i == len(ps.newlines) {
		return len(ps.text)
	}
	return ps.newlines[i]
}

// mergeWindows joins windows, sorted by start, that overlap or touch.
func mergeWindows(wins []window) []window {
	out := wins[:0]
	for _, w := range wins {
		if n := len(out); n > 0 && w.start <= out[n-1].end {
			out[n-1].end = max(out[n-1].end, w.end)
			continue
		}
		out = append(out, w)
	}
	return out
}
