package api

import "time"

// Limits are the server's size and count limits (PROTOCOL.md section 5).
type Limits struct {
	MaxEntryBytes  int           `toml:"max_entry_bytes"`
	MaxBodyBytes   int64         `toml:"max_body_bytes"`
	MaxEntries     int           `toml:"max_entries"`
	MaxKeyBytes    int           `toml:"max_key_bytes"`
	MaxKeySegments int           `toml:"max_key_segments"`
	MaxWait        time.Duration `toml:"max_wait"`
	// MaxHistoryPageBytes bounds the content one history page carries: the
	// page ends before the revision that would bring it past the bound,
	// but always holds one revision.
	MaxHistoryPageBytes int64 `toml:"max_history_page_bytes"`
}

// Protocol defaults.
const (
	DefaultMaxEntryBytes  = 250_000
	DefaultMaxBodyBytes   = 2 << 20
	DefaultMaxEntries     = 2000
	DefaultMaxKeyBytes    = 512
	DefaultMaxKeySegments = 16
	DefaultMaxWait        = 60 * time.Second
	// DefaultMaxHistoryPageBytes is also the most a server may set: what
	// clients take (see HistoryBodyBytes).
	DefaultMaxHistoryPageBytes = 4 << 20
)

// Client batching (PROTOCOL.md section 6).
const (
	// BatchMaxBytes caps the JSON body of one PUT a client sends.
	BatchMaxBytes = 200_000
	// BatchEnvelopeBytes is the size of `{"entries":{}}`.
	BatchEnvelopeBytes = 14
)

// DefaultLimits returns the protocol's default limits.
func DefaultLimits() Limits {
	return Limits{
		MaxEntryBytes:       DefaultMaxEntryBytes,
		MaxBodyBytes:        DefaultMaxBodyBytes,
		MaxEntries:          DefaultMaxEntries,
		MaxKeyBytes:         DefaultMaxKeyBytes,
		MaxKeySegments:      DefaultMaxKeySegments,
		MaxWait:             DefaultMaxWait,
		MaxHistoryPageBytes: DefaultMaxHistoryPageBytes,
	}
}

// KeyLimits returns the key limits of l, falling back to the defaults for
// unset fields.
func (l Limits) KeyLimits() (maxBytes, maxSegments int) {
	maxBytes, maxSegments = l.MaxKeyBytes, l.MaxKeySegments
	if maxBytes <= 0 {
		maxBytes = DefaultMaxKeyBytes
	}
	if maxSegments <= 0 {
		maxSegments = DefaultMaxKeySegments
	}
	return maxBytes, maxSegments
}
