package personal

import (
	"bytes"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"strings"

	"filippo.io/age"
	"filippo.io/age/armor"

	"github.com/teammemd/teammemd/server/api"
)

// ErrWrongSecret is returned by Unwrap when the secret does not open the
// envelope.
var ErrWrongSecret = errors.New("the recovery code or passphrase does not open this personal key")

// Wrap encrypts k to secret (a recovery code or a passphrase) with age's
// scrypt recipient, as ASCII armor: what the server keeps, and what a new
// machine unwraps with the secret its user carries.
func Wrap(k *Key, secret string) (string, error) {
	if secret == "" {
		return "", errors.New("wrap personal key: the secret is empty")
	}
	r, err := age.NewScryptRecipient(secret)
	if err != nil {
		return "", fmt.Errorf("wrap personal key: %w", err)
	}
	var buf bytes.Buffer
	a := armor.NewWriter(&buf)
	w, err := age.Encrypt(a, r)
	if err != nil {
		return "", fmt.Errorf("wrap personal key: %w", err)
	}
	if _, err := io.WriteString(w, k.String()); err != nil {
		return "", fmt.Errorf("wrap personal key: %w", err)
	}
	if err := w.Close(); err != nil {
		return "", fmt.Errorf("wrap personal key: %w", err)
	}
	if err := a.Close(); err != nil {
		return "", fmt.Errorf("wrap personal key: %w", err)
	}
	if buf.Len() > api.MaxEnvelopeBytes {
		return "", errors.New("wrap personal key: the envelope is too large")
	}
	return buf.String(), nil
}

// Unwrap opens an envelope made by Wrap with secret. A recovery code is
// accepted however it is spaced or cased.
func Unwrap(envelope, secret string) (*Key, error) {
	if len(envelope) > api.MaxEnvelopeBytes {
		return nil, errors.New("unwrap personal key: the envelope is too large")
	}
	tries := []string{secret}
	if code, ok := NormalizeRecoveryCode(secret); ok && code != secret {
		tries = append(tries, code)
	}
	for _, s := range tries {
		k, err := unwrap(envelope, s)
		if !errors.Is(err, ErrWrongSecret) {
			return k, err
		}
	}
	return nil, ErrWrongSecret
}

func unwrap(envelope, secret string) (*Key, error) {
	id, err := age.NewScryptIdentity(secret)
	if err != nil {
		return nil, fmt.Errorf("unwrap personal key: %w", err)
	}
	r, err := age.Decrypt(armor.NewReader(strings.NewReader(envelope)), id)
	if err != nil {
		var nomatch *age.NoIdentityMatchError
		if errors.As(err, &nomatch) {
			return nil, ErrWrongSecret
		}
		return nil, fmt.Errorf("unwrap personal key: not an envelope teammemd made: %w", err)
	}
	s, err := io.ReadAll(io.LimitReader(r, api.MaxEnvelopeBytes))
	if err != nil {
		return nil, fmt.Errorf("unwrap personal key: %w", err)
	}
	return ParseKey(string(s))
}

// Recovery codes: recoveryGroups groups of recoveryGroupLen characters
// from recoveryAlphabet (no 0/O or 1/I/L to confuse), 125 bits.
const (
	recoveryAlphabet = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
	recoveryGroups   = 5
	recoveryGroupLen = 5
)

// NewRecoveryCode returns a random recovery code, grouped for reading
// aloud and copying by hand: XXXXX-XXXXX-XXXXX-XXXXX-XXXXX.
func NewRecoveryCode() (string, error) {
	n := recoveryGroups * recoveryGroupLen
	var b strings.Builder
	buf := make([]byte, 1)
	for i := 0; i < n; {
		if _, err := rand.Read(buf); err != nil {
			return "", fmt.Errorf("recovery code: %w", err)
		}
		// Rejection sampling keeps every character equally likely.
		if int(buf[0]) >= 256/len(recoveryAlphabet)*len(recoveryAlphabet) {
			continue
		}
		if i > 0 && i%recoveryGroupLen == 0 {
			b.WriteByte('-')
		}
		b.WriteByte(recoveryAlphabet[int(buf[0])%len(recoveryAlphabet)])
		i++
	}
	return b.String(), nil
}

// NormalizeRecoveryCode reads s as a recovery code typed by hand: case,
// spaces and dashes do not matter. It reports false when s is not one.
func NormalizeRecoveryCode(s string) (string, bool) {
	var raw []byte
	for _, c := range strings.ToUpper(s) {
		switch {
		case c == '-' || c == ' ' || c == '\t':
		case c < 128 && strings.IndexByte(recoveryAlphabet, byte(c)) >= 0:
			raw = append(raw, byte(c))
		default:
			return "", false
		}
	}
	if len(raw) != recoveryGroups*recoveryGroupLen {
		return "", false
	}
	var b strings.Builder
	for i, c := range raw {
		if i > 0 && i%recoveryGroupLen == 0 {
			b.WriteByte('-')
		}
		b.WriteByte(c)
	}
	return b.String(), true
}
