package server

import (
	"github.com/teammemd/teammemd/server/store"
)

// Defaults of the [server.personal] section: each subject's quota over all
// its lanes.
const (
	DefaultPersonalMaxBytes   = 64 << 20
	DefaultPersonalMaxEntries = 10_000
)

// Personal is the [server.personal] section: the personal lane, one
// subject's end-to-end encrypted memory (PROTOCOL.md section 16).
type Personal struct {
	// Enabled serves the personal lane's routes; true when unset.
	Enabled *bool `toml:"enabled"`
	// MaxBytes caps the bytes of the live (encrypted) values of all of a
	// subject's lanes together.
	MaxBytes int64 `toml:"max_bytes"`
	// MaxEntries caps the live entries of all of a subject's lanes
	// together.
	MaxEntries int `toml:"max_entries"`
}

// On reports whether the server serves the personal lane.
func (p Personal) On() bool { return p.Enabled == nil || *p.Enabled }

// Resolve returns p with every unset field given its default.
func (p Personal) Resolve() Personal {
	setDefault(&p.MaxBytes, DefaultPersonalMaxBytes)
	setDefault(&p.MaxEntries, DefaultPersonalMaxEntries)
	return p
}

// Validate reports a negative quota.
func (p Personal) Validate() error {
	if err := notNegative("personal.max_bytes", p.MaxBytes); err != nil {
		return err
	}
	return notNegative("personal.max_entries", p.MaxEntries)
}

// Quota is the store's form of p's quota.
func (p Personal) Quota() store.Quota {
	return store.Quota{MaxBytes: p.MaxBytes, MaxEntries: p.MaxEntries}
}
