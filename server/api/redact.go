package api

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// redactPrefix is how many characters of a redacted key stay readable.
const redactPrefix = 4

// redactMark separates a redacted key's readable prefix from its hash.
const redactMark = "-redacted-"

// RedactKey is how a key whose name holds a secret is shown anywhere: in
// an error's details, a log line, a report, the status, a state file or a
// conflict copy's name. It keeps the first four characters (a path
// separator or an unprintable one as "_") and adds the first 12 hex digits
// of the key's SHA-256, so the same key always reads the same on client and
// server and two keys tell apart: "cred-redacted-1f0a9c3b7d2e". The result
// is one valid path segment and a valid file name on every system.
func RedactKey(key string) string {
	var b strings.Builder
	n := 0
	for _, r := range key {
		if n == redactPrefix {
			break
		}
		if r == '/' || r == '\\' || r == utf8.RuneError || !unicode.IsPrint(r) {
			r = '_'
		}
		b.WriteRune(r)
		n++
	}
	sum := sha256.Sum256([]byte(key))
	b.WriteString(redactMark)
	b.WriteString(hex.EncodeToString(sum[:6]))
	return b.String()
}

// ShownKeyMatches reports whether shown, a key as a server names it in an
// error, is key itself or key's redacted form.
func ShownKeyMatches(key, shown string) bool {
	return shown != "" && (shown == key || shown == RedactKey(key))
}

// Printable makes text from a server or a file name safe to print on a
// terminal: control characters, bidirectional overrides, line separators
// and invalid UTF-8 are escaped the way strconv.Quote writes them ("\x1b",
// "\n", "\u202e"), so they show without acting. Other text is unchanged.
func Printable(s string) string {
	if utf8.ValidString(s) && !strings.ContainsFunc(s, unprintable) {
		return s
	}
	return escapeText(s, unprintable)
}

// ValidText returns s with each byte that is not part of valid UTF-8
// written as \xNN, as Printable writes it; valid text is unchanged. JSON
// carries only UTF-8: a file name made valid this way still tells which
// file it is, where encoding/json would put U+FFFD for every such byte.
func ValidText(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return escapeText(s, func(rune) bool { return false })
}

// escapeText writes each byte of s that is not valid UTF-8 as \xNN and
// each rune escape reports as strconv.QuoteRune writes it.
func escapeText(s string, escape func(rune) bool) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteString(`\x`)
			b.WriteString(hex.EncodeToString([]byte{s[i]}))
		case escape(r):
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// unprintable reports a rune a terminal may act on rather than show.
func unprintable(r rune) bool {
	return unicode.IsControl(r) || unicode.In(r, unicode.Bidi_Control, unicode.Zl, unicode.Zp)
}

// IsRedacted reports whether shown is the form RedactKey gives a key, as
// opposed to a key shown as itself.
func IsRedacted(shown string) bool {
	before, sum, ok := strings.Cut(shown, redactMark)
	if !ok || utf8.RuneCountInString(before) > redactPrefix || len(sum) != 12 {
		return false
	}
	_, err := hex.DecodeString(sum)
	return err == nil && strings.ToLower(sum) == sum
}
