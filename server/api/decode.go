package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"unicode/utf8"
)

// maxSkipDepth bounds the nesting of a field the decoder does not know and
// skips, as encoding/json bounds any value.
const maxSkipDepth = 10_000

// Names of the PUT body's fields. They match without regard to case, as
// encoding/json matches them.
const (
	fieldEntries = "entries"
	fieldDeletes = "soft_delete_keys"
)

// DecodePut decodes a PUT body held in memory; see ReadPut.
func DecodePut(body []byte, lim Limits) (PutRequest, error) {
	return ReadPut(bytes.NewReader(body), lim)
}

// ReadPut decodes a PUT body from r token by token as it is read, under
// lim, and stops at the first thing wrong with it, so a refused body costs
// no more than what came before the fault. The body must be valid UTF-8
// JSON without lone surrogate escapes; entries holds at most MaxEntries
// entries (413 team_memory_too_many_entries: more can never fit in a repo)
// with no key twice, every key valid (400 invalid_key) and every value a
// string (not null) within MaxEntryBytes (413 team_memory_entry_too_large);
// soft_delete_keys holds at most MaxEntries valid keys (413
// request_too_large), none of them also written. Each field appears at most
// once; other fields are skipped. A protocol fault is an *Error ready to
// send; an error of r is returned wrapped.
func ReadPut(r io.Reader, lim Limits) (PutRequest, error) {
	dec := json.NewDecoder(newTextReader(r))
	dec.UseNumber() // a number is a token whatever its size: one past float64's range is no fault of the body
	d := &putDecoder{dec: dec, lim: lim, req: PutRequest{Entries: map[string]string{}}}
	if err := d.body(); err != nil {
		return PutRequest{}, decodeError(err)
	}
	return d.req, nil
}

// putDecoder decodes one PUT body.
type putDecoder struct {
	dec              *json.Decoder
	lim              Limits
	req              PutRequest
	entries, deletes bool // whether the field has been read
}

// body reads the top-level object, then checks that nothing but space
// follows it and that no key is both written and deleted.
func (d *putDecoder) body() error {
	tok, err := d.dec.Token()
	if err != nil {
		return err
	}
	if tok != nil { // null stands for an empty body, as encoding/json reads it
		if tok != json.Delim('{') {
			return invalid("request body must be a JSON object")
		}
		if err := d.fields(); err != nil {
			return err
		}
	}
	if _, err := d.dec.Token(); err != io.EOF {
		if err == nil {
			return invalid("request body holds more than one JSON value")
		}
		return err
	}
	for _, k := range d.req.SoftDeleteKeys {
		if _, both := d.req.Entries[k]; both {
			return invalid("key is both written and deleted").With("key", k)
		}
	}
	return nil
}

// fields reads the fields of the top-level object and its closing brace.
func (d *putDecoder) fields() error {
	for d.dec.More() {
		tok, err := d.dec.Token()
		if err != nil {
			return err
		}
		switch name, _ := tok.(string); {
		case strings.EqualFold(name, fieldEntries):
			err = d.once(&d.entries, fieldEntries, d.readEntries)
		case strings.EqualFold(name, fieldDeletes):
			err = d.once(&d.deletes, fieldDeletes, d.readDeletes)
		default:
			err = d.skip()
		}
		if err != nil {
			return err
		}
	}
	_, err := d.dec.Token()
	return err
}

// once reads a field with read unless it has been read already.
func (d *putDecoder) once(seen *bool, name string, read func() error) error {
	if *seen {
		return invalid(fmt.Sprintf("field %q appears more than once", name))
	}
	*seen = true
	return read()
}

// readEntries reads the entries object.
func (d *putDecoder) readEntries() error {
	open, err := d.open('{', "field \"entries\" must be an object of strings")
	if err != nil || !open {
		return err
	}
	for d.dec.More() {
		if max := d.lim.MaxEntries; max > 0 && len(d.req.Entries) >= max {
			return NewError(http.StatusRequestEntityTooLarge, CodeTooManyEntries,
				fmt.Sprintf("the request holds more than %d entries, the most a repo may hold; nothing was written", max)).
				With("max_entries", max).With("received_entries", max+1)
		}
		if err := d.readEntry(); err != nil {
			return err
		}
	}
	_, err = d.dec.Token()
	return err
}

// readEntry reads one key and its value.
func (d *putDecoder) readEntry() error {
	tok, err := d.dec.Token()
	if err != nil {
		return err
	}
	k, _ := tok.(string)
	if err := ValidateKey(k, d.lim); err != nil {
		return err
	}
	if _, dup := d.req.Entries[k]; dup {
		return invalid("key appears more than once in entries").With("key", k)
	}
	if tok, err = d.dec.Token(); err != nil {
		return err
	}
	v, ok := tok.(string)
	switch {
	case tok == nil:
		return invalid("entry value is null").With("key", k)
	case !ok:
		return invalid("entry value must be a string").With("key", k)
	case d.lim.MaxEntryBytes > 0 && len(v) > d.lim.MaxEntryBytes:
		return NewError(http.StatusRequestEntityTooLarge, CodeEntryTooLarge,
			fmt.Sprintf("entry is %d bytes, over the %d byte limit", len(v), d.lim.MaxEntryBytes)).
			With("key", k).With("max_bytes", d.lim.MaxEntryBytes)
	}
	d.req.Entries[k] = v
	return nil
}

// readDeletes reads the soft_delete_keys array.
func (d *putDecoder) readDeletes() error {
	open, err := d.open('[', "field \"soft_delete_keys\" must be an array of strings")
	if err != nil || !open {
		return err
	}
	for d.dec.More() {
		if max := d.lim.MaxEntries; max > 0 && len(d.req.SoftDeleteKeys) >= max {
			return NewError(http.StatusRequestEntityTooLarge, CodeBodyTooLarge,
				fmt.Sprintf("soft_delete_keys holds more than %d keys, the most a repo may hold; nothing was written", max)).
				With("max_soft_delete_keys", max)
		}
		tok, err := d.dec.Token()
		if err != nil {
			return err
		}
		k, ok := tok.(string)
		if !ok {
			return invalid("soft_delete_keys must hold only strings")
		}
		if err := ValidateKey(k, d.lim); err != nil {
			return err
		}
		d.req.SoftDeleteKeys = append(d.req.SoftDeleteKeys, k)
	}
	_, err = d.dec.Token()
	return err
}

// open reads the start of a field's value: delim, or null for an absent
// field (open false).
func (d *putDecoder) open(delim json.Delim, wrongType string) (bool, error) {
	tok, err := d.dec.Token()
	switch {
	case err != nil:
		return false, err
	case tok == nil:
		return false, nil
	case tok != delim:
		return false, invalid(wrongType)
	}
	return true, nil
}

// skip reads past the value of a field it does not know.
func (d *putDecoder) skip() error {
	depth := 0
	for {
		tok, err := d.dec.Token()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			if depth++; depth > maxSkipDepth {
				return invalid("malformed JSON body: nested too deeply")
			}
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth == 0 {
			return nil
		}
	}
}

func invalid(msg string) *Error {
	return NewError(http.StatusBadRequest, CodeInvalidRequest, msg)
}

// decodeError turns an error met while decoding into the protocol's answer;
// an error of the body's reader is returned wrapped.
func decodeError(err error) error {
	var e *Error
	var syntax *json.SyntaxError
	switch {
	case errors.As(err, &e):
		return e
	case errors.Is(err, errNotText):
		return invalid(errNotText.Error())
	case errors.As(err, &syntax):
		return invalid(fmt.Sprintf("malformed JSON body: syntax error at byte %d", syntax.Offset))
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return invalid("malformed JSON body: it ends too early")
	}
	return fmt.Errorf("read request body: %w", err)
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
