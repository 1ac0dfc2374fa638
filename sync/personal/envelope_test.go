package personal

import (
	"errors"
	"strings"
	"testing"
)

func TestWrapUnwrap(t *testing.T) {
	k := mustKey(t)
	code, err := NewRecoveryCode()
	if err != nil {
		t.Fatal(err)
	}
	env, err := Wrap(k, code)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(env, k.String()) || strings.Contains(env, code) {
		t.Fatal("the envelope holds the key or the code in the clear")
	}
	typed := strings.ToLower(strings.ReplaceAll(code, "-", " "))
	for _, secret := range []string{code, typed} {
		got, err := Unwrap(env, secret)
		if err != nil {
			t.Fatalf("Unwrap(%q): %v", secret, err)
		}
		if got.ID() != k.ID() {
			t.Errorf("Unwrap(%q) gave key %s, want %s", secret, got.ID(), k.ID())
		}
	}
	if _, err := Unwrap(env, "not the code"); !errors.Is(err, ErrWrongSecret) {
		t.Errorf("Unwrap(wrong secret) = %v, want ErrWrongSecret", err)
	}
	if _, err := Unwrap("junk", code); err == nil || errors.Is(err, ErrWrongSecret) {
		t.Errorf("Unwrap(junk) = %v, want a malformed-envelope error", err)
	}
	if _, err := Wrap(k, ""); err == nil {
		t.Error("Wrap with an empty secret succeeded")
	}
}

func TestRecoveryCode(t *testing.T) {
	seen := map[string]bool{}
	for range 50 {
		c, err := NewRecoveryCode()
		if err != nil {
			t.Fatal(err)
		}
		if n, ok := NormalizeRecoveryCode(c); !ok || n != c || len(c) != 29 {
			t.Fatalf("NewRecoveryCode() = %q, not in its own normal form", c)
		}
		if seen[c] {
			t.Fatalf("NewRecoveryCode() repeated %q", c)
		}
		seen[c] = true
	}
	for in, want := range map[string]string{
		"abcde-fghjk-mnpqr-stuvw-xyz23":   "ABCDE-FGHJK-MNPQR-STUVW-XYZ23",
		" ABCDE FGHJK MNPQR STUVW XYZ23 ": "ABCDE-FGHJK-MNPQR-STUVW-XYZ23",
		"ABCDE-FGHJK-MNPQR-STUVW-XYZ2":    "",
		"ABCDE-FGHJK-MNPQR-STUVW-XYZ20":   "",
		"correct horse battery staple":    "",
	} {
		got, ok := NormalizeRecoveryCode(in)
		if ok != (want != "") || got != want {
			t.Errorf("NormalizeRecoveryCode(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
}
