package scan

import (
	"encoding/base64"
	"encoding/hex"
	"strings"

	"github.com/zricethezav/gitleaks/v8/detect/codec"
)

// gitleaks decodes base64, hex, percent and unicode escapes in a text and
// scans the result again. Its decoder runs one expression with four
// alternatives over the whole text, which costs as much as several rules.
// mayDecode answers, far cheaper, whether that decoder would find anything
// to decode. Without a percent or unicode escape ('%' and two hex digits;
// "U+" and four; a backslash or two, 'u' or 'U' and four) only the hex and
// base64 forms can match, and they match runs of [A-Za-z0-9_/+=-] alone,
// so the decoder run on each run that is long enough, holds a byte the
// forms need and has a match that decodes (runMayDecode), finds exactly
// what it finds in that run of the whole text.

// minEncodedRun is the shortest run the base64 form (16 characters) or the
// hex form (32) can match.
const minEncodedRun = 16

// mayDecode says whether the decoder finds a part of text to decode.
func mayDecode(d *codec.Decoder, text string) bool {
	if hasEscape(text) {
		_, segments := d.Decode(text, nil)
		return len(segments) > 0
	}
	for start := 0; start < len(text); {
		if !encodedByte(text[start]) {
			start++
			continue
		}
		end, decodable := start, false
		for ; end < len(text) && encodedByte(text[end]); end++ {
			decodable = decodable || decodesByte(text[end])
		}
		if end-start >= minEncodedRun && decodable && runMayDecode(text[start:end]) {
			if _, segments := d.Decode(text[start:end], nil); len(segments) > 0 {
				return true
			}
		}
		start = end
	}
	return false
}

// hasEscape says whether text holds the start of a percent or unicode
// escape as the decoder's expression finds them.
func hasEscape(text string) bool {
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '%':
			if hexDigits(text[i+1:], 2) {
				return true
			}
		case '+':
			if i > 0 && (text[i-1] == 'U' || text[i-1] == 'u') && hexDigits(text[i+1:], 4) {
				return true
			}
		case '\\':
			rest := strings.TrimPrefix(text[i+1:], "\\")
			if len(rest) > 0 && (rest[0] == 'u' || rest[0] == 'U') && hexDigits(rest[1:], 4) {
				return true
			}
		}
	}
	return false
}

// hexDigits says whether s starts with n hex digits.
func hexDigits(s string, n int) bool {
	return len(s) >= n && hexRun(s[:n]) == n
}

// encodedByte says whether c can be part of a hex or base64 match.
func encodedByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '_' || c == '/' || c == '+' || c == '-' || c == '='
}

// decodesByte says whether c is one of the bytes without which gitleaks
// does not try to decode a match: a digit for hex, a digit or one of +/-_
// for base64.
func decodesByte(c byte) bool {
	return '0' <= c && c <= '9' || c == '_' || c == '/' || c == '+' || c == '-'
}

// runMayDecode says whether a run of [A-Za-z0-9_/+=-] holds a match of the
// decoder's hex or base64 form that decodes to printable text, finding the
// matches as its expression does: leftmost first, the hex form before the
// base64 one at the same start, each as long as it goes. Only then is the
// decoder itself asked; this never says no where the decoder says yes.
func runMayDecode(run string) bool {
	for pos := 0; pos < len(run); {
		p, n := nextBase64Run(run, pos)
		if n < minEncodedRun {
			return false
		}
		if h := hexRun(run[p:]); h >= 2*minEncodedRun {
			if hexDecodes(run[p : p+h]) {
				return true
			}
			pos = p + h
			continue
		}
		end := p + n
		for pad := 0; pad < 2 && end < len(run) && run[end] == '='; pad++ {
			end++
		}
		if base64Decodes(run[p:end]) {
			return true
		}
		pos = end
	}
	return false
}

// nextBase64Run finds, from pos on, the first stretch of [A-Za-z0-9_/+-]
// at least minEncodedRun long: its start and length, or a length under
// minEncodedRun when there is none.
func nextBase64Run(run string, pos int) (int, int) {
	for pos < len(run) {
		if run[pos] == '=' {
			pos++
			continue
		}
		n := strings.IndexByte(run[pos:], '=')
		if n < 0 {
			n = len(run) - pos
		}
		if n >= minEncodedRun {
			return pos, n
		}
		pos += n
	}
	return pos, 0
}

func hexRun(s string) int {
	n := 0
	for n < len(s) && isHex(s[n]) {
		n++
	}
	return n
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// hexDecodes is gitleaks' test of a hex match: an even length, a digit,
// and every decoded byte printable.
func hexDecodes(s string) bool {
	if len(s)%2 != 0 || !strings.ContainsAny(s, "0123456789") {
		return false
	}
	b, err := hex.DecodeString(s)
	return err == nil && printable(b)
}

// base64Decodes is gitleaks' test of a base64 match: a digit or one of
// +/-_, and a standard or raw URL decoding to printable text.
func base64Decodes(s string) bool {
	if !strings.ContainsAny(s, "0123456789+/-_") {
		return false
	}
	if b, err := base64.StdEncoding.DecodeString(s); err == nil && printable(b) {
		return true
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	return err == nil && printable(b)
}

// printable is gitleaks' printable ASCII: tab to tilde.
func printable(b []byte) bool {
	for _, c := range b {
		if c <= '\x08' || c >= '\x7f' {
			return false
		}
	}
	return true
}
