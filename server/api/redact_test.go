package api

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestRedactKey(t *testing.T) {
	tests := []struct {
		key, prefix string
	}{
		{"AKIAZ52HGXYRN4WBTEST.md", "AKIA-redacted-"},
		{"creds/AKIAZ52HGXYRN4WBTEST/prod.md", "cred-redacted-"},
		{"a/b/AKIAZ52HGXYRN4WBTEST.md", "a_b_-redacted-"},
		{"ab", "ab-redacted-"},
		{"\x1b[2J.md", "_[2J-redacted-"},
	}
	for _, tt := range tests {
		got := RedactKey(tt.key)
		if !strings.HasPrefix(got, tt.prefix) || len(strings.TrimPrefix(got, tt.prefix)) != 12 {
			t.Errorf("RedactKey(%q) = %q, want %q and 12 hex digits", tt.key, got, tt.prefix)
		}
		if err := ValidateKey(got, Limits{}); err != nil || strings.Contains(got, "/") {
			t.Errorf("RedactKey(%q) = %q, not one valid path segment: %v", tt.key, got, err)
		}
		if again := RedactKey(tt.key); again != got {
			t.Errorf("RedactKey(%q) = %q then %q, want the same", tt.key, got, again)
		}
	}
	if a, b := RedactKey("AKIAZ52HGXYRN4WBTEST.md"), RedactKey("AKIAZ52HGXYRN4WBTESU.md"); a == b {
		t.Errorf("RedactKey of two keys = %q both, want them told apart", a)
	}
}

func TestShownKeyMatches(t *testing.T) {
	key := "creds/AKIAZ52HGXYRN4WBTEST.md"
	tests := []struct {
		key, shown string
		want       bool
	}{
		{key, key, true},
		{key, RedactKey(key), true},
		{key, RedactKey("other.md"), false},
		{key, "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		if got := ShownKeyMatches(tt.key, tt.shown); got != tt.want {
			t.Errorf("ShownKeyMatches(%q, %q) = %v, want %v", tt.key, tt.shown, got, tt.want)
		}
	}
}

func TestPrintable(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"plain notes/a.md", "plain notes/a.md"},
		{"café ✓ 日本", "café ✓ 日本"},
		{"a\x1b[2Jb", `a\x1b[2Jb`},
		{"title\x1b]0;pwned\x07", `title\x1b]0;pwned\a`},
		{"two\nlines\r\t", `two\nlines\r\t`},
		{"rtl\u202eevil", `rtl\u202eevil`},
		{"sep\u2028x", `sep\u2028x`},
		{"c1\u009bx", `c1\u009bx`},
		{"bad\xffutf8", `bad\xffutf8`},
		{"del\x7f", `del\x7f`},
	}
	for _, tt := range tests {
		if got := Printable(tt.in); got != tt.want {
			t.Errorf("Printable(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// ValidText escapes invalid UTF-8 alone: control characters stay, for the
// JSON they go into to escape and the terminal's printer to show.
func TestValidText(t *testing.T) {
	for in, want := range map[string]string{
		"notes/a.md": "notes/a.md", "café\u202e": "café\u202e", "a\x1bb": "a\x1bb",
		"bad\xffname.md": `bad\xffname.md`, "\xc3": `\xc3`, "ok\xe6\x97": `ok\xe6\x97`, "\ufffd": "\ufffd",
	} {
		if got := ValidText(in); got != want || !utf8.ValidString(got) {
			t.Errorf("ValidText(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzPrintable(f *testing.F) {
	for _, s := range []string{"a\x1b[2Jb", "rtl\u202e", "bad\xff", "ok"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, r := range Printable(s) {
			if unprintable(r) {
				t.Fatalf("Printable(%q) keeps %U", s, r)
			}
		}
	})
}
