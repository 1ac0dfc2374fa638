package api

import (
	"bytes"
	"errors"
	"io"
	"unicode/utf8"
)

// errNotText is the error of a body that is not valid UTF-8 or that holds a
// \u escape of a lone surrogate, which encoding/json would silently turn
// into U+FFFD.
var errNotText = errors.New("request body is not valid UTF-8")

// textReader passes a JSON text through as it is read and fails with
// errNotText at the first read holding a byte that is not UTF-8 or that
// ends a lone surrogate escape, and at the end of a text that stops inside
// a character or a surrogate pair. Its state is a few bytes, whatever the
// size of the text.
type textReader struct {
	r     io.Reader
	part  [utf8.UTFMax]byte // the start of a character split across reads
	npart int
	esc   escapes
}

func newTextReader(r io.Reader) *textReader { return &textReader{r: r} }

func (t *textReader) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	if !t.validUTF8(p[:n]) || !t.esc.feed(p[:n]) {
		return 0, errNotText
	}
	if err == io.EOF && (t.npart > 0 || !t.esc.complete()) {
		return 0, errNotText
	}
	return n, err
}

// validUTF8 checks b, the next bytes of the text. A character cut at the
// end of b is kept and checked once the next read completes it.
func (t *textReader) validUTF8(b []byte) bool {
	for t.npart > 0 && len(b) > 0 {
		t.part[t.npart] = b[0]
		t.npart++
		b = b[1:]
		if !utf8.FullRune(t.part[:t.npart]) {
			continue
		}
		r, size := utf8.DecodeRune(t.part[:t.npart])
		if (r == utf8.RuneError && size == 1) || size != t.npart {
			return false
		}
		t.npart = 0
	}
	if t.npart > 0 {
		return true // b ended inside the character
	}
	end := len(b)
	for i := len(b) - 1; i >= 0 && i > len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				end = i
			}
			break
		}
	}
	if !utf8.Valid(b[:end]) {
		return false
	}
	t.npart = copy(t.part[:], b[end:])
	return true
}

// escapes follows the backslash escapes of a JSON text to find \u escapes
// of surrogates: a high one (D800-DBFF) must be followed at once by a \u
// escape of a low one (DC00-DFFF), and a low one must follow a high one.
type escapes struct {
	state  escState
	low    bool // the \u escape being read must be a low surrogate
	digits int
	r      rune
}

type escState uint8

const (
	escNone          escState = iota
	escBackslash              // after a backslash
	escHex                    // inside the four digits of \u
	escWantBackslash          // after a high surrogate
	escWantU                  // after a high surrogate and a backslash
)

// feed follows b and reports false at a lone surrogate.
func (e *escapes) feed(b []byte) bool {
	for len(b) > 0 {
		if e.state == escNone {
			i := bytes.IndexByte(b, '\\')
			if i < 0 {
				return true
			}
			b = b[i:]
		}
		if !e.step(b[0]) {
			return false
		}
		b = b[1:]
	}
	return true
}

// step follows one byte.
func (e *escapes) step(c byte) bool {
	switch e.state {
	case escNone:
		if c == '\\' {
			e.state = escBackslash
		}
	case escBackslash:
		e.state = escNone
		if c == 'u' {
			e.state, e.digits, e.r = escHex, 0, 0
		}
	case escHex:
		return e.hexDigit(c)
	case escWantBackslash:
		e.state = escWantU
		return c == '\\'
	case escWantU:
		e.state, e.digits, e.r = escHex, 0, 0
		return c == 'u'
	}
	return true
}

// hexDigit takes one of the four digits of a \u escape and judges the
// escape once it has all four. A \u escape broken off before that is a JSON
// syntax error the decoder reports, unless it was to end a surrogate pair.
func (e *escapes) hexDigit(c byte) bool {
	v, ok := hexValue(c)
	if !ok {
		if e.low {
			return false
		}
		e.state = escNone
		return e.step(c)
	}
	e.r = e.r<<4 | v
	if e.digits++; e.digits < 4 {
		return true
	}
	isLow, isHigh := e.r >= 0xDC00 && e.r <= 0xDFFF, e.r >= 0xD800 && e.r <= 0xDBFF
	if e.low {
		e.state, e.low = escNone, false
		return isLow
	}
	e.state = escNone
	if isHigh {
		e.state, e.low = escWantBackslash, true
	}
	return !isLow
}

// complete reports whether the text may end here: not between the halves
// of a surrogate pair.
func (e *escapes) complete() bool { return !e.low }

func hexValue(c byte) (rune, bool) {
	switch {
	case '0' <= c && c <= '9':
		return rune(c - '0'), true
	case 'a' <= c && c <= 'f':
		return rune(c - 'a' + 10), true
	case 'A' <= c && c <= 'F':
		return rune(c - 'A' + 10), true
	}
	return 0, false
}
