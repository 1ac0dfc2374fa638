// Package personal is the client side of the personal lane (PROTOCOL.md
// section 16): the key a user's machines share, the names and lanes it
// derives, the sealing of each note before it leaves the machine, and the
// wrapping of the key to a secret the user carries. The server sees only
// what Seal returns.
package personal

import (
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"filippo.io/age"

	"github.com/teammemd/teammemd/server/api"
)

// UserProject is the project name of the lane that holds the user-level
// files, the ones Claude Code keeps for every project.
const UserProject = "~user"

// Key is one personal key: an age X25519 identity and the keys derived from
// it that name lanes and entries.
type Key struct {
	id       *age.X25519Identity
	keyID    string
	laneKey  []byte
	nameKey  []byte
	identity string
}

// NewKey makes a new random key.
func NewKey() (*Key, error) {
	id, err := age.GenerateX25519Identity()
	if err != nil {
		return nil, fmt.Errorf("generate personal key: %w", err)
	}
	return newKey(id)
}

// ParseKey reads a key from its secret string (AGE-SECRET-KEY-1...).
func ParseKey(s string) (*Key, error) {
	id, err := age.ParseX25519Identity(strings.TrimSpace(s))
	if err != nil {
		return nil, errors.New("personal key: not a valid key")
	}
	return newKey(id)
}

func newKey(id *age.X25519Identity) (*Key, error) {
	secret := id.String()
	lane, err := hkdf.Key(sha256.New, []byte(secret), nil, "teammemd personal lane v1", 32)
	if err != nil {
		return nil, fmt.Errorf("derive lane key: %w", err)
	}
	name, err := hkdf.Key(sha256.New, []byte(secret), nil, "teammemd personal name v1", 32)
	if err != nil {
		return nil, fmt.Errorf("derive name key: %w", err)
	}
	sum := sha256.Sum256([]byte("teammemd personal key id\x00" + id.Recipient().String()))
	return &Key{id: id, keyID: hex.EncodeToString(sum[:])[:api.KeyIDBytes], laneKey: lane, nameKey: name, identity: secret}, nil
}

// String returns the key's secret string. It is what the keyring keeps and
// what Wrap encrypts; it must never be logged or sent in the clear.
func (k *Key) String() string { return k.identity }

// ID returns the key's ID, which the server records and compares.
func (k *Key) ID() string { return k.keyID }

// LaneID returns the ID of project's lane under this key: the same on
// every machine that holds the key, and telling the server nothing of the
// project's name.
func (k *Key) LaneID(project string) string {
	return macHex(k.laneKey, project)[:api.LaneIDBytes]
}

// EntryKey returns the wire key of the file at relPath in project's lane.
func (k *Key) EntryKey(project, relPath string) string {
	return macHex(k.nameKey, project+"\x00"+relPath) + sealedSuffix
}

// sealedSuffix ends every wire key of a personal lane.
const sealedSuffix = ".age"

func macHex(key []byte, msg string) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(msg))
	return hex.EncodeToString(m.Sum(nil))
}
