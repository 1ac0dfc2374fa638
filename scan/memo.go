package scan

import (
	"regexp"
	"sync"
)

// Bounds of the match memo.
const (
	// memoMaxBytes is how many bytes of text one generation of the memo
	// holds; two generations are kept.
	memoMaxBytes = 4 << 20
	// memoMaxText is the longest text the memo keeps an answer for.
	memoMaxText = 16 << 10
)

// matchMemo remembers, for every scan of the process, the prefilter's
// answers on the windows it tests around keywords: whether an anchor's
// tail matched a text, and whether a rule may report on a region. A
// note's next revision mostly repeats the last one's lines, so the same
// windows come back scan after scan, and an answer looked up costs a map
// probe where testing it again costs a backtracking match. The key is the
// text itself, never a hash of it, so an answer is never another text's.
// It keeps two generations of at most memoMaxBytes of text each: when the
// newer fills up, the older is dropped, and a lookup that finds a text in
// the older copies it to the newer.
type matchMemo struct {
	mu       sync.Mutex
	cur, old map[memoKey]bool
	curBytes int
}

// memoKey is one question: what re, in the way kind says, answers on
// text.
type memoKey struct {
	re   *regexp.Regexp
	kind memoKind
	text string
}

// memoKind says which question a memoKey asks, and of a region where its
// text sits in the whole.
type memoKind uint8

const (
	// kindMatch is re.MatchString(text).
	kindMatch memoKind = iota
	// kindRegion is whether the rule of re may report on the region text;
	// regionCutStart and regionCutEnd are added when text is cut off from
	// the whole text before or after it.
	kindRegion
	regionCutStart memoKind = 2
	regionCutEnd   memoKind = 4
)

func newMatchMemo() *matchMemo {
	return &matchMemo{cur: map[memoKey]bool{}}
}

// answer returns what k asks, from the memo when it holds it, else from
// compute, whose answer it keeps.
func (m *matchMemo) answer(k memoKey, compute func() bool) bool {
	if len(k.text) > memoMaxText {
		return compute()
	}
	m.mu.Lock()
	ok, found := m.cur[k]
	if !found {
		if ok, found = m.old[k]; found {
			m.putLocked(k, ok)
		}
	}
	m.mu.Unlock()
	if found {
		return ok
	}
	ok = compute()
	k.text = string([]byte(k.text)) // not the scanned text's memory, which the memo would keep alive
	m.mu.Lock()
	m.putLocked(k, ok)
	m.mu.Unlock()
	return ok
}

// MatchString returns re.MatchString(text).
func (m *matchMemo) MatchString(re *regexp.Regexp, text string) bool {
	return m.answer(memoKey{re: re, kind: kindMatch, text: text}, func() bool { return re.MatchString(text) })
}

// putLocked stores k's answer, starting a new generation when the newer
// is full. The caller holds mu.
func (m *matchMemo) putLocked(k memoKey, ok bool) {
	if m.curBytes+len(k.text) > memoMaxBytes {
		m.old, m.cur, m.curBytes = m.cur, map[memoKey]bool{}, 0
	}
	if _, found := m.cur[k]; !found {
		m.curBytes += len(k.text)
	}
	m.cur[k] = ok
}
