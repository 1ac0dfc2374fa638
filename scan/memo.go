package scan

import (
	"crypto/sha256"
	"regexp"
	"sync"
)

// Bounds of the match memo.
const (
	// memoMaxEntries is how many answers one generation of the memo
	// holds; two generations are kept.
	memoMaxEntries = 1 << 16
	// memoMaxText is the longest text the memo keeps an answer for: a
	// longer window is most of a file, whose verdict the verdict cache
	// already keeps.
	memoMaxText = 16 << 10
)

// matchMemo remembers, for every scan of the process, the prefilter's
// answers on the windows it tests around keywords: whether an anchor's
// tail matched a text, and whether a rule may report on a region. A
// note's next revision mostly repeats the last one's lines, so the same
// windows come back scan after scan, and an answer looked up costs a hash
// and a map probe where testing it again costs a backtracking match. A
// text is known by its SHA-256, as the verdict cache knows a file, so the
// memo holds no text of the notes it has seen. It keeps two generations
// of at most memoMaxEntries answers: when the newer fills up, the older is
// dropped, and a lookup that finds an answer in the older copies it to the
// newer.
type matchMemo struct {
	mu       sync.Mutex
	cur, old map[memoKey]bool
}

// memoKey is one question: what re, in the way kind says, answers on the
// text whose SHA-256 is sum.
type memoKey struct {
	re   *regexp.Regexp
	kind memoKind
	sum  [sha256.Size]byte
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

// answer returns what re, in the way kind says, answers on text: from
// the memo when it holds the answer, else from compute, whose answer it
// keeps.
func (m *matchMemo) answer(re *regexp.Regexp, kind memoKind, text string, compute func() bool) bool {
	if len(text) > memoMaxText {
		return compute()
	}
	k := memoKey{re: re, kind: kind, sum: sumText(text)}
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
	m.mu.Lock()
	m.putLocked(k, ok)
	m.mu.Unlock()
	return ok
}

// scratchPool holds the buffers sumText copies a text into: SHA-256 takes
// bytes, and a conversion of its own for every window would allocate.
var scratchPool = sync.Pool{New: func() any { return new([]byte) }}

// sumText returns the SHA-256 of text.
func sumText(text string) [sha256.Size]byte {
	buf := scratchPool.Get().(*[]byte)
	*buf = append((*buf)[:0], text...)
	sum := sha256.Sum256(*buf)
	scratchPool.Put(buf)
	return sum
}

// MatchString returns re.MatchString(text).
func (m *matchMemo) MatchString(re *regexp.Regexp, text string) bool {
	return m.answer(re, kindMatch, text, func() bool { return re.MatchString(text) })
}

// putLocked stores k's answer, starting a new generation when the newer
// is full. The caller holds mu.
func (m *matchMemo) putLocked(k memoKey, ok bool) {
	if _, found := m.cur[k]; !found && len(m.cur) >= memoMaxEntries {
		m.old, m.cur = m.cur, make(map[memoKey]bool, memoMaxEntries)
	}
	m.cur[k] = ok
}
