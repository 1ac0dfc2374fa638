package api

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"testing"
	"testing/iotest"
	"unicode/utf8"
)

var textSeeds = []string{
	`{"a":"plain"}`, `"\ud83d\ude00"`, `"\ud800"`, `"\udc00"`, `"\ud800x"`, `"\ud800\u0041"`, `"\\ud800"`,
	`"\\\ud800"`, `"\u12G4\ud800"`, `"\ud800\u12G4"`, `"\u00e9"`, "\"\xe2\x82\xac\"", "\"\xe2\x82\"", "\"\xff\"",
	"\xf0\x9f\x98", `\`, `\u`, `\ud83d\`, `\ud83d\u`, `\ud83d\ude0`, "\"\xed\xa0\x80\"",
}

// textOK is the rule textReader enforces, written out the plain way over a
// whole text: valid UTF-8, and every \u escape of a surrogate part of a
// high-low pair.
func textOK(b []byte) bool {
	if !utf8.Valid(b) {
		return false
	}
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' {
			continue
		}
		if i+1 < len(b) && b[i+1] != 'u' {
			i++ // an escaped character, which may be a backslash
			continue
		}
		r, ok := escapeAt(b, i)
		switch {
		case !ok:
		case r >= 0xDC00 && r <= 0xDFFF:
			return false
		case r >= 0xD800 && r <= 0xDBFF:
			lo, ok := escapeAt(b, i+6)
			if !ok || lo < 0xDC00 || lo > 0xDFFF {
				return false
			}
			i += 11
		default:
			i += 5
		}
	}
	return true
}

// escapeAt decodes the \uXXXX escape at b[i:].
func escapeAt(b []byte, i int) (rune, bool) {
	if i+6 > len(b) || b[i] != '\\' || b[i+1] != 'u' {
		return 0, false
	}
	var r rune
	for _, c := range b[i+2 : i+6] {
		v, ok := hexValue(c)
		if !ok {
			return 0, false
		}
		r = r<<4 | v
	}
	return r, true
}

// readText reads b through a textReader in reads of at most chunk bytes
// and reports whether it passed.
func readText(b []byte, chunk int) bool {
	var r io.Reader = bytes.NewReader(b)
	if chunk == 1 {
		r = iotest.OneByteReader(r)
	} else {
		r = io.LimitReader(r, int64(len(b))) // plain reads of any size
	}
	buf := make([]byte, max(chunk, 1))
	tr := newTextReader(r)
	for {
		_, err := tr.Read(buf)
		if err == io.EOF {
			return true
		}
		if err != nil {
			return false
		}
	}
}

func TestTextReader(t *testing.T) {
	for _, s := range textSeeds {
		want := textOK([]byte(s))
		for _, chunk := range []int{1, 2, 3, 5, 4096} {
			if got := readText([]byte(s), chunk); got != want {
				t.Errorf("textReader(%q, reads of %d) = %v, want %v", s, chunk, got, want)
			}
		}
	}
}

// A body read one byte at a time, so characters and escapes are split
// across reads, decodes as the whole body does; a body with two faults may
// be refused for either, with the same status and code.
func TestReadPutOneByteAtATime(t *testing.T) {
	for _, s := range append(textSeeds, `{"entries":{"a.md":"\ud83d\ude00 caf`+"\u00e9"+`"}}`, `{"entries":{"a.md":"\ud83d"}}`) {
		whole, werr := DecodePut([]byte(s), DefaultLimits())
		split, serr := ReadPut(iotest.OneByteReader(bytes.NewReader([]byte(s))), DefaultLimits())
		if errorCode(werr) != errorCode(serr) || whole.Entries["a.md"] != split.Entries["a.md"] {
			t.Errorf("ReadPut(%q, one byte at a time) = %q, %v, want %q, %v", s, split.Entries, serr, whole.Entries, werr)
		}
	}
}

// errorCode is the status and code of a decoding error, "" for none.
func errorCode(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if !errors.As(err, &e) {
		return err.Error()
	}
	return fmt.Sprint(e.Status, " ", e.Code)
}

func FuzzTextReader(f *testing.F) {
	for _, s := range textSeeds {
		f.Add([]byte(s), uint8(1))
	}
	f.Fuzz(func(t *testing.T, b []byte, chunk uint8) {
		if got, want := readText(b, int(chunk)), textOK(b); got != want {
			t.Fatalf("textReader(%q, reads of %d) = %v, want %v", b, chunk, got, want)
		}
	})
}
