package server

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/teammemd/teammemd/server/api"
)

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// maxFastBody is the largest PUT body decodePut reads whole before
// decoding it in one pass; a larger one is decoded as it arrives.
const maxFastBody = 256 << 10

// bodyBufs holds the buffers decodePut reads bodies into.
var bodyBufs = sync.Pool{New: func() any { b := make([]byte, 0, 16<<10); return &b }}

// decodePut decodes a PUT body under lim. A body of at most maxFastBody
// bytes is read whole and, when it is of the common form (valid UTF-8,
// the fields entries and soft_delete_keys spelled as the protocol spells
// them, each at most once, strings without surrogate escapes, and nothing
// the limits refuse), decoded in one pass over its bytes. Anything else,
// and every body that is refused, goes to api.ReadPut, so every answer
// and every error is ReadPut's.
func decodePut(r io.Reader, lim api.Limits) (api.PutRequest, error) {
	bp := bodyBufs.Get().(*[]byte)
	defer func() {
		if cap(*bp) <= maxFastBody {
			bodyBufs.Put(bp)
		}
	}()
	buf, rest := readUpTo((*bp)[:0], r, maxFastBody)
	*bp = buf[:0]
	if rest == nil {
		if req, ok := fastPut(buf, lim); ok {
			return req, nil
		}
		return api.ReadPut(bytes.NewReader(buf), lim)
	}
	return api.ReadPut(io.MultiReader(bytes.NewReader(buf), rest), lim)
}

// readUpTo appends r's bytes to buf until r ends or buf holds more than
// max. It returns nil as rest when buf holds all of r, else the reader of
// what follows buf: r itself, or one that returns r's error.
func readUpTo(buf []byte, r io.Reader, max int) ([]byte, io.Reader) {
	for len(buf) <= max {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		switch {
		case errors.Is(err, io.EOF):
			return buf, nil
		case err != nil:
			return buf, errReader{err}
		}
	}
	return buf, r
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// fastPut decodes body in one pass, or reports false for a body it leaves
// to api.ReadPut: one it would refuse, or one of a form it does not take.
// What it returns is what api.ReadPut returns for the same body.
func fastPut(body []byte, lim api.Limits) (api.PutRequest, bool) {
	if !utf8.Valid(body) {
		return api.PutRequest{}, false
	}
	p := fastParser{b: body}
	req := api.PutRequest{Entries: map[string]string{}}
	if !p.byte('{') {
		return api.PutRequest{}, false
	}
	var entries, deletes bool
	for first := true; !p.byte('}'); first = false {
		if !first && !p.byte(',') {
			return api.PutRequest{}, false
		}
		name, ok := p.rawName()
		if !ok || !p.byte(':') {
			return api.PutRequest{}, false
		}
		switch {
		case string(name) == "entries" && !entries:
			entries, ok = true, p.entries(req.Entries, lim)
		case string(name) == "soft_delete_keys" && !deletes:
			deletes = true
			req.SoftDeleteKeys, ok = p.deletes(lim)
		default:
			ok = false
		}
		if !ok {
			return api.PutRequest{}, false
		}
	}
	p.space()
	if p.i != len(p.b) {
		return api.PutRequest{}, false
	}
	for _, k := range req.SoftDeleteKeys {
		if _, both := req.Entries[k]; both {
			return api.PutRequest{}, false
		}
	}
	return req, true
}

// fastParser reads a JSON text held in memory, already known to be valid
// UTF-8. Each method reports false at anything it does not take.
type fastParser struct {
	b []byte
	i int
}

func (p *fastParser) space() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// byte skips space and reads c, reporting whether it was there.
func (p *fastParser) byte(c byte) bool {
	p.space()
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

// rawName reads a field name without escapes, returned without a copy.
func (p *fastParser) rawName() ([]byte, bool) {
	if !p.byte('"') {
		return nil, false
	}
	end := bytes.IndexByte(p.b[p.i:], '"')
	if end < 0 {
		return nil, false
	}
	name := p.b[p.i : p.i+end]
	if bytes.IndexByte(name, '\\') >= 0 {
		return nil, false
	}
	p.i += end + 1
	return name, true
}

// entries reads the entries object into m.
func (p *fastParser) entries(m map[string]string, lim api.Limits) bool {
	if !p.byte('{') {
		return false
	}
	for first := true; !p.byte('}'); first = false {
		if !first && !p.byte(',') {
			return false
		}
		if lim.MaxEntries > 0 && len(m) >= lim.MaxEntries {
			return false
		}
		k, ok := p.str()
		if !ok || api.ValidateKey(k, lim) != nil || !p.byte(':') {
			return false
		}
		if _, dup := m[k]; dup {
			return false
		}
		v, ok := p.str()
		if !ok || (lim.MaxEntryBytes > 0 && len(v) > lim.MaxEntryBytes) {
			return false
		}
		m[k] = v
	}
	return true
}

// deletes reads the soft_delete_keys array.
func (p *fastParser) deletes(lim api.Limits) ([]string, bool) {
	if !p.byte('[') {
		return nil, false
	}
	var keys []string
	for first := true; !p.byte(']'); first = false {
		if !first && !p.byte(',') {
			return nil, false
		}
		if lim.MaxEntries > 0 && len(keys) >= lim.MaxEntries {
			return nil, false
		}
		k, ok := p.str()
		if !ok || api.ValidateKey(k, lim) != nil {
			return nil, false
		}
		keys = append(keys, k)
	}
	return keys, true
}

// str reads a JSON string and returns its value, copied once out of the
// body. It does not take \u escapes of surrogates, which api.ReadPut
// checks in pairs.
func (p *fastParser) str() (string, bool) {
	if !p.byte('"') {
		return "", false
	}
	start := p.i
	p.i += plainRun(p.b[p.i:])
	switch {
	case p.i == len(p.b) || p.b[p.i] < 0x20:
		return "", false
	case p.b[p.i] == '\\':
		return p.escaped(start)
	}
	s := string(p.b[start:p.i])
	p.i++ // the closing quote
	return s, true
}

// plainRun is the length of b's start that holds no quote, backslash or
// control character.
func plainRun(b []byte) int {
	for i, c := range b {
		if c == '"' || c == '\\' || c < 0x20 {
			return i
		}
	}
	return len(b)
}

// escaped reads the rest of a string from its first backslash on, the
// string having begun at start. A first pass checks the escapes and
// measures the value, a second decodes it into a string of that size, so
// the value is copied once, into the one allocation it needs.
func (p *fastParser) escaped(start int) (string, bool) {
	n, end, ok := p.measure(p.i)
	if !ok {
		return "", false
	}
	var out strings.Builder
	out.Grow(p.i - start + n)
	out.Write(p.b[start:p.i])
	for p.i < end {
		if run := plainRun(p.b[p.i:end]); run > 0 {
			out.Write(p.b[p.i : p.i+run])
			p.i += run
			continue
		}
		r, size := unescape(p.b[p.i:])
		if r < utf8.RuneSelf {
			out.WriteByte(byte(r))
		} else {
			out.WriteRune(r)
		}
		p.i += size
	}
	p.i = end + 1 // the closing quote
	return out.String(), true
}

// measure follows a string from i, at a backslash, to its closing quote,
// and returns its decoded length from i and the quote's index. It
// reports false at a control character, an escape JSON does not have,
// an escaped surrogate (left to api.ReadPut, which checks them in pairs)
// or the end of the body.
func (p *fastParser) measure(i int) (n, end int, ok bool) {
	for i < len(p.b) {
		run := plainRun(p.b[i:])
		n, i = n+run, i+run
		switch {
		case i == len(p.b) || p.b[i] < 0x20:
			return 0, 0, false
		case p.b[i] == '"':
			return n, i, true
		}
		r, size := unescape(p.b[i:])
		if size == 0 {
			return 0, 0, false
		}
		n, i = n+utf8.RuneLen(r), i+size
	}
	return 0, 0, false
}

// unescape decodes the escape b starts with, returning its rune and its
// length in b, or a length of 0 for one the one-pass decode does not take.
func unescape(b []byte) (rune, int) {
	if len(b) < 2 {
		return 0, 0
	}
	switch b[1] {
	case '"', '\\', '/':
		return rune(b[1]), 2
	case 'b':
		return '\b', 2
	case 'f':
		return '\f', 2
	case 'n':
		return '\n', 2
	case 'r':
		return '\r', 2
	case 't':
		return '\t', 2
	case 'u':
		r, ok := hex4(b[2:])
		if !ok || utf8.RuneLen(r) < 0 { // a surrogate
			return 0, 0
		}
		return r, 6
	}
	return 0, 0
}

// hex4 reads the four hex digits of a \u escape at b's start.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}
