package api

import (
	"errors"
	"strings"
	"testing"
)

var keyCases = []struct {
	key string
	ok  bool
}{
	{"MEMORY.md", true},
	{"sub/notes.md", true},
	{"a/b/c/d.txt", true},
	{".DS_Store", true}, // legal on the wire, never synced by the daemon
	{"notes..md", true},
	{"100%.md", true},
	{"sub/100%25.md", true},
	{"ünïcödé/ノート.md", true},
	{"", false},
	{".", false},
	{"..", false},
	{"../etc/passwd", false},
	{"a/../b.md", false},
	{"a/./b.md", false},
	{"a//b.md", false},
	{"a/", false},
	{"/etc/passwd", false},
	{"C:/Windows/x.md", false},
	{"c:x.md", false},
	{`a\b.md`, false},
	{"a\x00b.md", false},
	{"a\nb.md", false},
	{"a\x7fb.md", false},
	{"a\u0085b.md", false},
	{"trailing.", false},
	{"trailing ", false},
	{"dir./x.md", false},
	{"%2e%2e/x.md", false},
	{"a%2fb.md", false},
	{"%252e%252e%252fx.md", false},
	{"a%5cb.md", false},
	{"\uff0e\uff0e/x.md", false}, // fullwidth dots fold to ".."
	{"a\uff0fb.md", false},       // fullwidth solidus folds to "/"
	{"a\u2025b.md", false},       // two dot leader folds to ".."
	{"a\ufe68b.md", false},       // small reverse solidus folds to "\"
	{"\xff\xfe.md", false},
	{strings.Repeat("a", 512), true},
	{strings.Repeat("a", 513), false},
	{strings.Repeat("a/", 15) + "a", true},
	{strings.Repeat("a/", 16) + "a", false},
}

func TestValidateKey(t *testing.T) {
	lim := DefaultLimits()
	for _, tc := range keyCases {
		err := ValidateKey(tc.key, lim)
		if got := err == nil; got != tc.ok {
			t.Errorf("ValidateKey(%q) = %v, want ok=%v", tc.key, err, tc.ok)
			continue
		}
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Status != 400 || e.Code != CodeInvalidKey {
				t.Errorf("ValidateKey(%q) = %#v, want a 400 invalid_key *Error", tc.key, err)
			}
		}
	}
}

func TestSyncableKey(t *testing.T) {
	tests := []struct {
		key  string
		want bool
	}{
		{"MEMORY.md", true},
		{"sub/a.txt", true},
		{".DS_Store", false},
		{".hidden/a.md", false},
		{"sub/.a.md", false},
		{"image.png", false},
		{"notes.MD", false},
	}
	for _, tc := range tests {
		if got := IsSyncableKey(tc.key); got != tc.want {
			t.Errorf("IsSyncableKey(%q) = %v, want %v", tc.key, got, tc.want)
		}
	}
}

func FuzzValidateKey(f *testing.F) {
	for _, tc := range keyCases {
		f.Add(tc.key)
	}
	lim := DefaultLimits()
	f.Fuzz(func(t *testing.T, key string) {
		if ValidateKey(key, lim) != nil {
			return
		}
		// Whatever passes must be a relative path that stays inside the
		// directory, whichever way a consumer decodes it.
		for _, form := range []string{key, urlDecodeAll(key)} {
			if strings.HasPrefix(form, "/") || strings.Contains(form, `\`) {
				t.Fatalf("ValidateKey(%q) accepted an absolute or backslashed path", key)
			}
			for _, seg := range strings.Split(form, "/") {
				if seg == ".." || seg == "." || seg == "" {
					if form == key {
						t.Fatalf("ValidateKey(%q) accepted segment %q", key, seg)
					}
				}
			}
		}
		if len(key) > DefaultMaxKeyBytes {
			t.Fatalf("ValidateKey accepted a %d-byte key", len(key))
		}
	})
}
