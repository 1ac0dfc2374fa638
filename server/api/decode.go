package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"unicode/utf8"
)

// wirePut mirrors PutRequest with pointer values so a JSON null entry is
// told apart from an empty string.
type wirePut struct {
	Entries        map[string]*string `json:"entries"`
	SoftDeleteKeys []string           `json:"soft_delete_keys"`
}

// DecodePut parses and validates a PUT body under lim: valid UTF-8 JSON (no
// lone surrogate escapes), no null values, every key valid (400 invalid_key),
// every value within the entry cap (413 team_memory_entry_too_large), and no
// key both written and deleted. Errors are *Error values ready to send.
func DecodePut(body []byte, lim Limits) (PutRequest, error) {
	if !utf8.Valid(body) || hasLoneSurrogate(body) {
		return PutRequest{}, NewError(http.StatusBadRequest, CodeInvalidRequest, "request body is not valid UTF-8")
	}
	var w wirePut
	if err := json.Unmarshal(body, &w); err != nil {
		return PutRequest{}, NewError(http.StatusBadRequest, CodeInvalidRequest, "malformed JSON body: "+jsonProblem(err))
	}
	req := PutRequest{Entries: make(map[string]string, len(w.Entries)), SoftDeleteKeys: w.SoftDeleteKeys}
	for k, v := range w.Entries {
		if err := ValidateKey(k, lim); err != nil {
			return PutRequest{}, err
		}
		if v == nil {
			return PutRequest{}, NewError(http.StatusBadRequest, CodeInvalidRequest, "entry value is null").With("key", k)
		}
		if max := lim.MaxEntryBytes; max > 0 && len(*v) > max {
			return PutRequest{}, NewError(http.StatusRequestEntityTooLarge, CodeEntryTooLarge,
				fmt.Sprintf("entry is %d bytes, over the %d byte limit", len(*v), max)).With("key", k).With("max_bytes", max)
		}
		req.Entries[k] = *v
	}
	for _, k := range w.SoftDeleteKeys {
		if err := ValidateKey(k, lim); err != nil {
			return PutRequest{}, err
		}
		if _, both := req.Entries[k]; both {
			return PutRequest{}, NewError(http.StatusBadRequest, CodeInvalidRequest, "key is both written and deleted").With("key", k)
		}
	}
	return req, nil
}

// jsonProblem describes a JSON decoding error without quoting the input.
func jsonProblem(err error) string {
	switch e := err.(type) {
	case *json.SyntaxError:
		return fmt.Sprintf("syntax error at byte %d", e.Offset)
	case *json.UnmarshalTypeError:
		return fmt.Sprintf("field %q must be %s", e.Field, e.Type)
	default:
		return "cannot decode"
	}
}

// hasLoneSurrogate reports whether a JSON text holds a \uD800-\uDFFF escape
// that is not a high surrogate followed by a low one. encoding/json would
// silently turn it into U+FFFD; the protocol refuses such a value.
func hasLoneSurrogate(b []byte) bool {
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' {
			continue
		}
		if i+1 < len(b) && b[i+1] != 'u' {
			i++ // skip the escaped character, which may be a backslash
			continue
		}
		r, ok := hexRune(b, i)
		if !ok {
			continue
		}
		switch {
		case r >= 0xDC00 && r <= 0xDFFF:
			return true
		case r >= 0xD800 && r <= 0xDBFF:
			lo, ok := hexRune(b, i+6)
			if !ok || lo < 0xDC00 || lo > 0xDFFF {
				return true
			}
			i += 11
		default:
			i += 5
		}
	}
	return false
}

// hexRune decodes the \uXXXX escape at b[i:].
func hexRune(b []byte, i int) (rune, bool) {
	if i+6 > len(b) || b[i] != '\\' || b[i+1] != 'u' {
		return 0, false
	}
	var r rune
	for _, c := range b[i+2 : i+6] {
		switch {
		case '0' <= c && c <= '9':
			r = r<<4 | rune(c-'0')
		case 'a' <= c && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case 'A' <= c && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// EncodedLen returns the length of s as a JSON string (quotes included) the
// way encoding/json writes it with HTML escaping off, which is how the
// daemon encodes its PUT bodies. It is the per-key and per-value size of
// PROTOCOL.md section 6's batch packing.
func EncodedLen(s string) int {
	n := 2
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t' || c == '\b' || c == '\f':
				n += 2
			case c < 0x20:
				n += 6
			default:
				n++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			n += 6 // written as \ufffd
		case r == '\u2028' || r == '\u2029':
			n += 6
		default:
			n += size
		}
		i += size
	}
	return n
}

// BatchEntryBytes is what one entry adds to a PUT body when packing batches:
// its encoded key and value plus the colon and the comma.
func BatchEntryBytes(key, value string) int {
	return EncodedLen(key) + EncodedLen(value) + 2
}
