package auth

import (
	"strings"
	"testing"
	"time"
)

func TestNewToken(t *testing.T) {
	seen := map[string]bool{}
	for range 50 {
		secret, hash, err := NewToken()
		if err != nil {
			t.Fatalf("NewToken() error = %v", err)
		}
		if !strings.HasPrefix(secret, TokenPrefix) {
			t.Errorf("NewToken() secret prefix = %q, want %q", secret[:4], TokenPrefix)
		}
		if got, want := len(secret), len(TokenPrefix)+52; got != want {
			t.Errorf("len(NewToken() secret) = %d, want %d", got, want)
		}
		if got := HashToken(secret); got != hash {
			t.Errorf("HashToken(secret) = %q, want NewToken's hash %q", got, hash)
		}
		if strings.Contains(hash, secret) || seen[secret] {
			t.Fatalf("NewToken() returned a repeated secret or a hash holding it")
		}
		seen[secret] = true
	}
}

func TestHashToken(t *testing.T) {
	// SHA-256 of "abc".
	const want = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
	if got := HashToken("abc"); got != want {
		t.Errorf("HashToken(abc) = %q, want %q", got, want)
	}
}

func TestNewTokenRecord(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	grants, err := ParseGrants("acme/*", "write")
	if err != nil {
		t.Fatal(err)
	}
	secret, tok, err := NewTokenRecord("ann", grants, now)
	if err != nil {
		t.Fatalf("NewTokenRecord() error = %v", err)
	}
	if tok.Hash != HashToken(secret) || tok.Subject != "ann" || !tok.CreatedAt.Equal(now) || len(tok.ID) != 12 {
		t.Errorf("NewTokenRecord() = %+v, want hash of secret, subject ann, created %v, 12-char id", tok, now)
	}
}
