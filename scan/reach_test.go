package scan

import (
	"regexp/syntax"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/zricethezav/gitleaks/v8/detect/codec"
)

// TestFoldsToASCII checks that foldsToASCII lists every rune outside ASCII
// that Go's case folding puts with an ASCII letter or strings.ToLower turns
// into one: a text holding any other such rune could hide a keyword from
// the prefilter.
func TestFoldsToASCII(t *testing.T) {
	for r := rune(utf8.RuneSelf); r <= unicode.MaxRune; r++ {
		want := unicode.ToLower(r) < utf8.RuneSelf
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			want = want || f < utf8.RuneSelf
		}
		if _, got := foldsToASCII[r]; got != want {
			t.Errorf("foldsToASCII holds %U: %v, want %v", r, got, want)
		}
	}
}

func TestReachOf(t *testing.T) {
	tests := []struct {
		expr     string
		keywords []string
		windowed bool
		before   int // bytes, when windowed
		after    int
	}{
		{`\bAKIA[A-Z2-7]{16}\b`, []string{"akia"}, true, 4, 20},
		{`(?i)token[=:]\s{0,3}[a-z0-9]{32}`, []string{"token"}, true, 7, 107}, // k and s fold with wider runes
		{`(?:ghp|gho)_[0-9a-zA-Z]{36}`, []string{"ghp_", "gho_"}, true, 4, 40},
		{`[a-z]+secret`, []string{"secret"}, true, unbounded, 6},
		{`xox[bp]-[0-9]{10,13}`, []string{"xoxb", "xoxp"}, true, 4, 18},
		{`key|[0-9]{40}`, []string{"key"}, false, 0, 0},
		{`[a-z]{8}`, []string{"key"}, false, 0, 0},
		{`(?:key)?[0-9]{8}`, []string{"key"}, false, 0, 0},
	}
	for _, tt := range tests {
		re, err := syntax.Parse(tt.expr, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		r, ok := reachOf(re, tt.keywords)
		if ok != tt.windowed {
			t.Errorf("reachOf(%s) windowed = %v, want %v", tt.expr, ok, tt.windowed)
			continue
		}
		if ok && (r.before.bytes != tt.before || r.after.bytes != tt.after) {
			t.Errorf("reachOf(%s) = before %d, after %d bytes, want %d, %d", tt.expr, r.before.bytes, r.after.bytes, tt.before, tt.after)
		}
	}
}

// TestMayDecode holds mayDecode to gitleaks' decoder: it must say yes
// wherever the decoder finds something to decode.
func TestMayDecode(t *testing.T) {
	texts := []string{
		"plain words only",
		"id 0f3c2a9e-5b1d-4c8e-9a7f-2d6b8e1c4f0a and commit 4e7a0c9b1f2d3e4a5b6c7d8e9f0a1b2c3d4e5f6a",
		"hex: 68656c6c6f20776f726c64206865782074657874", // printable when decoded
		"b64: aGVsbG8gd29ybGQgYmFzZTY0IHRleHQ=",
		"url: https%3A%2F%2Fexample.com%2Fpath",
		`escaped: \u0041\u0042\u0043\u0044`,
		"U+0041 U+0042 ",
		"AWS_SECRET_ACCESS_KEY and SLACK_WEBHOOK_URL and GITHUB_TOKEN_NAME",
		"mixed aGVsbG8gd29ybGQ= then 313233343536373839303132333435363738393031323334",
	}
	for _, text := range texts {
		d := codec.NewDecoder()
		_, segments := d.Decode(text, nil)
		if want := len(segments) > 0; mayDecode(codec.NewDecoder(), text) != want && want {
			t.Errorf("mayDecode(%q) = false, the decoder finds %d parts", text, len(segments))
		}
	}
	for _, text := range []string{"plain words only", strings.Repeat("AWS_SECRET_ACCESS_KEY ", 20)} {
		if mayDecode(codec.NewDecoder(), text) {
			t.Errorf("mayDecode(%q) = true, want false", text)
		}
	}
}

// FuzzMayDecode holds mayDecode to gitleaks' decoder on any text.
func FuzzMayDecode(f *testing.F) {
	f.Add("b64: aGVsbG8gd29ybGQgYmFzZTY0IHRleHQ=")
	f.Add("hex: 68656c6c6f20776f726c64206865782074657874")
	f.Add("url: https%3A%2F%2Fexample.com%2Fpath")
	f.Fuzz(func(t *testing.T, text string) {
		if _, segments := codec.NewDecoder().Decode(text, nil); len(segments) > 0 && !mayDecode(codec.NewDecoder(), text) {
			t.Errorf("mayDecode(%q) = false, the decoder finds %d parts", text, len(segments))
		}
	})
}
