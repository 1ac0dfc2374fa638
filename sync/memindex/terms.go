package memindex

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxTermBytes bounds a word: a longer run of letters (a hash, a blob) is
// cut, so it still matches by its prefix.
const maxTermBytes = 64

// eachTerm calls fn with each word of s, lower-cased: a run of letters
// and digits, anything else separating words.
func eachTerm(s string, fn func(string)) {
	eachTermAt(s, func(t string, _ int) { fn(t) })
}

// eachTermAt is eachTerm that also passes the byte offset in s where each
// word starts.
func eachTermAt(s string, fn func(term string, at int)) {
	var b strings.Builder
	start := 0
	flush := func() {
		if b.Len() > 0 {
			fn(b.String(), start)
			b.Reset()
		}
	}
	for i := 0; i < len(s); {
		r, size := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[i:])
		}
		if !isWordRune(r) {
			flush()
		} else if b.Len()+utf8.RuneLen(r) <= maxTermBytes {
			if b.Len() == 0 {
				start = i
			}
			b.WriteRune(unicode.ToLower(r))
		}
		i += size
	}
	flush()
}

// isWordRune reports whether r is part of a word.
func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// terms returns the distinct words of s in order.
func terms(s string) []string {
	var out []string
	seen := map[string]bool{}
	eachTerm(s, func(t string) {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	})
	return out
}
