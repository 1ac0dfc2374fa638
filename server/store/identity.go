package store

import (
	"crypto/rand"
	"encoding/hex"
)

// NewStoreID returns a fresh store identity: 32 random hex digits.
func NewStoreID() string {
	b := make([]byte, 16)
	rand.Read(b) // never fails (crypto/rand)
	return hex.EncodeToString(b)
}
