package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"
)

func TestDecodePut(t *testing.T) {
	lim := DefaultLimits()
	lim.MaxEntryBytes = 10
	tests := []struct {
		name   string
		body   string
		status int // 0 = ok
		code   string
	}{
		{"empty object", `{}`, 0, ""},
		{"entries", `{"entries":{"a.md":"x","b/c.md":""}}`, 0, ""},
		{"deletes", `{"entries":{},"soft_delete_keys":["a.md"]}`, 0, ""},
		{"unknown fields tolerated", `{"entries":{"a.md":"x"},"extra":1}`, 0, ""},
		{"paired surrogates", `{"entries":{"a.md":"\ud83d\ude00"}}`, 0, ""},
		{"escaped backslash then u", `{"entries":{"a.md":"\\ud800"}}`, 0, ""},
		{"malformed", `{"entries":`, 400, CodeInvalidRequest},
		{"not an object", `[]`, 400, CodeInvalidRequest},
		{"wrong value type", `{"entries":{"a.md":1}}`, 400, CodeInvalidRequest},
		{"null value", `{"entries":{"a.md":null}}`, 400, CodeInvalidRequest},
		{"invalid UTF-8", "{\"entries\":{\"a.md\":\"\xff\"}}", 400, CodeInvalidRequest},
		{"lone high surrogate", `{"entries":{"a.md":"\ud800x"}}`, 400, CodeInvalidRequest},
		{"lone low surrogate", `{"entries":{"a.md":"\udc00"}}`, 400, CodeInvalidRequest},
		{"bad key", `{"entries":{"../x.md":"x"}}`, 400, CodeInvalidKey},
		{"bad delete key", `{"soft_delete_keys":["/etc"]}`, 400, CodeInvalidKey},
		{"written and deleted", `{"entries":{"a.md":"x"},"soft_delete_keys":["a.md"]}`, 400, CodeInvalidRequest},
		{"entry too large", `{"entries":{"a.md":"12345678901"}}`, 413, CodeEntryTooLarge},
		{"null body", `null`, 0, ""},
		{"null fields", `{"entries":null,"soft_delete_keys":null}`, 0, ""},
		{"nested unknown field", `{"extra":{"a":[1,{"b":null}],"c":"d"},"entries":{"a.md":"x"}}`, 0, ""},
		{"field names fold case", `{"Entries":{"a.md":"x"},"SOFT_DELETE_KEYS":["b.md"]}`, 0, ""},
		{"empty body", ``, 400, CodeInvalidRequest},
		{"duplicate key", `{"entries":{"a.md":"x","a.md":"y"}}`, 400, CodeInvalidRequest},
		{"entries twice", `{"entries":{"a.md":"x"},"entries":{"b.md":"y"}}`, 400, CodeInvalidRequest},
		{"deletes twice", `{"soft_delete_keys":["a.md"],"soft_delete_keys":["b.md"]}`, 400, CodeInvalidRequest},
		{"deleted then written", `{"soft_delete_keys":["a.md"],"entries":{"a.md":"x"}}`, 400, CodeInvalidRequest},
		{"object value", `{"entries":{"a.md":{}}}`, 400, CodeInvalidRequest},
		{"array value", `{"entries":{"a.md":["x"]}}`, 400, CodeInvalidRequest},
		{"entries not an object", `{"entries":"a.md"}`, 400, CodeInvalidRequest},
		{"deletes not an array", `{"soft_delete_keys":"a.md"}`, 400, CodeInvalidRequest},
		{"delete not a string", `{"soft_delete_keys":[1]}`, 400, CodeInvalidRequest},
		{"trailing data", `{"entries":{}} {}`, 400, CodeInvalidRequest},
		{"unterminated", `{"entries":{"a.md":"x"}`, 400, CodeInvalidRequest},
		{"lone surrogate in key", `{"entries":{"\udc00.md":"x"}}`, 400, CodeInvalidRequest},
		{"high surrogate then text", `{"entries":{"a.md":"\ud83dx\ude00"}}`, 400, CodeInvalidRequest},
		{"truncated UTF-8", "{\"entries\":{\"a.md\":\"\xe2\x82\"}}", 400, CodeInvalidRequest},
		{"a number past float64's range as the body", `1E700`, 400, CodeInvalidRequest},
		{"unknown field with a number past float64's range", `{"extra":1E700,"entries":{"a.md":"x"}}`, 0, ""},
		{"unknown field with a number past float64's range, nested", `{"extra":[-1e999,{"b":2E+400}],"entries":{"a.md":"x"}}`, 0, ""},
		{"value a number past float64's range", `{"entries":{"a.md":1E700}}`, 400, CodeInvalidRequest},
		{"delete a number past float64's range", `{"soft_delete_keys":[1E700]}`, 400, CodeInvalidRequest},
		{"unknown field nested too deep", `{"extra":` + strings.Repeat("[", 10_001) + strings.Repeat("]", 10_001) + `}`, 400, CodeInvalidRequest},
	}
	for _, tc := range tests {
		req, err := DecodePut([]byte(tc.body), lim)
		if tc.status == 0 {
			if err != nil {
				t.Errorf("DecodePut(%s) = %v, want ok", tc.name, err)
			}
			continue
		}
		var e *Error
		if !errors.As(err, &e) || e.Status != tc.status || e.Code != tc.code {
			t.Errorf("DecodePut(%s) = %+v, %v, want %d %s", tc.name, req, err, tc.status, tc.code)
		}
	}
}

// TestDecodePutResult checks what a body decodes to: field names match
// without regard to case, unknown fields are skipped, and null stands for
// an absent field.
func TestDecodePutResult(t *testing.T) {
	tests := []struct {
		body    string
		entries map[string]string
		deletes []string
	}{
		{`{"entries":{"a.md":"x","b/c.md":""},"soft_delete_keys":["d.md","e.md"]}`, map[string]string{"a.md": "x", "b/c.md": ""}, []string{"d.md", "e.md"}},
		{`{"Entries":{"a.md":"\u00e9\ud83d\ude00"}}`, map[string]string{"a.md": "\u00e9\U0001F600"}, nil},
		{`{"x":{"entries":{"no.md":"n"}},"entries":{"a.md":"x"}}`, map[string]string{"a.md": "x"}, nil},
		{`{"entries":null}`, map[string]string{}, nil},
		{` null `, map[string]string{}, nil},
	}
	for _, tt := range tests {
		req, err := DecodePut([]byte(tt.body), DefaultLimits())
		if err != nil {
			t.Errorf("DecodePut(%s) = %v, want ok", tt.body, err)
			continue
		}
		if !maps.Equal(req.Entries, tt.entries) || !slices.Equal(req.SoftDeleteKeys, tt.deletes) {
			t.Errorf("DecodePut(%s) = %q %q, want %q %q", tt.body, req.Entries, req.SoftDeleteKeys, tt.entries, tt.deletes)
		}
	}
}

// TestDecodePutCounts checks that a body with more entries, or more soft
// deletes, than a repo may hold is refused at the first one past the limit.
func TestDecodePutCounts(t *testing.T) {
	lim := DefaultLimits()
	lim.MaxEntries = 3
	tests := []struct {
		name     string
		body     string
		status   int // 0 = ok
		code     string
		detail   string
		detailIs int
	}{
		{"entries at the limit", `{"entries":{"a":"","b":"","c":""}}`, 0, "", "", 0},
		{"deletes at the limit", `{"soft_delete_keys":["a","b","c"]}`, 0, "", "", 0},
		{"both at the limit", `{"entries":{"a":"","b":"","c":""},"soft_delete_keys":["d","e","f"]}`, 0, "", "", 0},
		{"one entry too many", `{"entries":{"a":"","b":"","c":"","d":""}}`, 413, CodeTooManyEntries, "received_entries", 4},
		{"invalid key past the limit", `{"entries":{"a":"","b":"","c":"","../d":""}}`, 413, CodeTooManyEntries, "max_entries", 3},
		{"broken JSON past the limit", `{"entries":{"a":"","b":"","c":"","d":`, 413, CodeTooManyEntries, "max_entries", 3},
		{"one delete too many", `{"soft_delete_keys":["a","b","c","d"]}`, 413, CodeBodyTooLarge, "max_soft_delete_keys", 3},
	}
	for _, tt := range tests {
		_, err := DecodePut([]byte(tt.body), lim)
		if tt.status == 0 {
			if err != nil {
				t.Errorf("DecodePut(%s) = %v, want ok", tt.name, err)
			}
			continue
		}
		var e *Error
		if !errors.As(err, &e) || e.Status != tt.status || e.Code != tt.code {
			t.Errorf("DecodePut(%s) = %v, want %d %s", tt.name, err, tt.status, tt.code)
			continue
		}
		if got, _ := e.IntDetail(tt.detail); got != tt.detailIs {
			t.Errorf("DecodePut(%s) details %s = %v, want %d", tt.name, tt.detail, e.Details[tt.detail], tt.detailIs)
		}
	}
}

func TestDecodePutTooLargeDetails(t *testing.T) {
	lim := DefaultLimits()
	lim.MaxEntryBytes = 3
	_, err := DecodePut([]byte(`{"entries":{"big.md":"secret-ish body"}}`), lim)
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("DecodePut = %v, want *Error", err)
	}
	if got, _ := e.IntDetail("max_bytes"); got != 3 {
		t.Errorf("max_bytes = %d, want 3", got)
	}
	if e.Details["key"] != "big.md" {
		t.Errorf("key = %v, want big.md", e.Details["key"])
	}
	if strings.Contains(e.Message, "secret-ish") {
		t.Errorf("message %q echoes the entry body", e.Message)
	}
}

func TestErrorEnvelopeRoundTrip(t *testing.T) {
	in := NewError(413, CodeTooManyEntries, "too many").With("max_entries", 2000).With("received_entries", 2003)
	body, err := json.Marshal(in.Envelope())
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"error","error":{"type":"request_too_large","message":"too many","details":{"error_code":"team_memory_too_many_entries","max_entries":2000,"received_entries":2003}}}`
	if string(body) != want {
		t.Errorf("envelope = %s, want %s", body, want)
	}
	out := ParseError(413, body)
	if out.Code != CodeTooManyEntries || out.Status != 413 {
		t.Errorf("ParseError = %+v, want 413 %s", out, CodeTooManyEntries)
	}
	if n, ok := out.IntDetail("max_entries"); !ok || n != 2000 {
		t.Errorf("IntDetail(max_entries) = %d, %v, want 2000", n, ok)
	}
	if got := ParseError(502, []byte("<html>bad gateway</html>")); got.Status != 502 || got.Code != "" {
		t.Errorf("ParseError(html) = %+v, want status 502 and no code", got)
	}
}

var encodedLenSeeds = []string{"", "plain", "quote\"back\\slash", "ctl\x01\x1f\n\r\t\b\f", "<html>&amp;", "ünï ノート 😀", "\u2028\u2029", "bad\xffutf8"}

func TestEncodedLen(t *testing.T) {
	for _, s := range encodedLenSeeds {
		if got, want := EncodedLen(s), encodedLen(t, s); got != want {
			t.Errorf("EncodedLen(%q) = %d, want %d", s, got, want)
		}
	}
	if got := BatchEnvelopeBytes; got != len(`{"entries":{}}`) {
		t.Errorf("BatchEnvelopeBytes = %d, want %d", got, len(`{"entries":{}}`))
	}
}

// encodedLen is what encoding/json actually writes with HTML escaping off.
func encodedLen(t testing.TB, s string) int {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		t.Fatal(err)
	}
	return buf.Len() - 1 // Encode appends a newline
}

func TestBatchEntryBytesMatchesBody(t *testing.T) {
	entries := map[string]string{"a.md": "x\"y", "b/ü.md": "line\nline", "c.txt": ""}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(PutRequest{Entries: entries}); err != nil {
		t.Fatal(err)
	}
	want := buf.Len() - 1
	got := BatchEnvelopeBytes - 1 // n entries need n-1 commas
	for k, v := range entries {
		got += BatchEntryBytes(k, v)
	}
	if got != want {
		t.Errorf("packed size = %d, want body size %d", got, want)
	}
}

func FuzzEncodedLen(f *testing.F) {
	for _, s := range encodedLenSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := EncodedLen(s), encodedLen(t, s); got != want {
			t.Fatalf("EncodedLen(%q) = %d, want %d", s, got, want)
		}
	})
}

func FuzzDecodePut(f *testing.F) {
	for _, s := range []string{`{}`, `{"entries":{"a.md":"x"}}`, `{"soft_delete_keys":["a.md"]}`, `{"entries":{"a.md":"\ud800"}}`, `{"entries":{"../a":"x"}}`} {
		f.Add([]byte(s))
	}
	lim := DefaultLimits()
	f.Fuzz(func(t *testing.T, body []byte) {
		req, err := DecodePut(body, lim)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || (e.Status != 400 && e.Status != 413) {
				t.Fatalf("DecodePut error %v is not a 400/413 *Error", err)
			}
			return
		}
		for k, v := range req.Entries {
			if ValidateKey(k, lim) != nil || len(v) > lim.MaxEntryBytes {
				t.Fatalf("DecodePut accepted key %q (%d bytes)", k, len(v))
			}
			if strings.ContainsRune(v, '\uFFFD') && !bytes.Contains(body, []byte("\uFFFD")) && !bytes.Contains(bytes.ToLower(body), []byte(`\ufffd`)) {
				t.Fatalf("DecodePut silently replaced invalid text in %q", body)
			}
		}
	})
}
