package api

import "time"

// The personal lane (PROTOCOL.md section 16): one subject's private memory,
// end-to-end encrypted by its clients, in a namespace of its own that no
// grant, admin token, web view or MCP endpoint reaches.
const (
	// PersonalPath is a lane's collection route: full pull, hash probe,
	// change wait and push, with the bodies of the team route, and DELETE,
	// which drops the whole lane. The lane is named by ParamLane.
	PersonalPath = "/api/claude_code/personal_memory"
	// PersonalKeyPath holds the subject's wrapped key: GET and PUT.
	PersonalKeyPath = PersonalPath + "/key"
	// PersonalLanesPath lists the subject's lanes and quota: GET.
	PersonalLanesPath = PersonalPath + "/lanes"
	// ParamLane names a lane on PersonalPath.
	ParamLane = "lane"
	// PersonalKeyHeader carries, on every lane request, the ID of the key
	// the client encrypts with; on every lane answer, the ID of the
	// subject's current key.
	PersonalKeyHeader = "Teammemd-Personal-Key"
)

// Error codes of the personal lane.
const (
	// CodePersonalNotInitialized: the subject has no key yet (404 on the
	// key route, 409 on a lane write).
	CodePersonalNotInitialized = "personal_lane_not_initialized"
	// CodePersonalKeyChanged: a lane write or delete named a key that is
	// not the subject's current one (409); the client must join again.
	CodePersonalKeyChanged = "personal_key_changed"
	// CodePersonalQuota: the write would take the subject past its quota
	// of bytes or entries (413).
	CodePersonalQuota = "personal_quota_exceeded"
	// CodePersonalDisabled: the server does not offer the personal lane
	// (404).
	CodePersonalDisabled = "personal_lane_disabled"
)

// KeyIDBytes and LaneIDBytes are the lengths of a key ID and a lane ID:
// lowercase hex.
const (
	KeyIDBytes  = 32
	LaneIDBytes = 32
)

// ValidKeyID reports whether s is a well-formed key ID.
func ValidKeyID(s string) bool { return lowerHex(s, KeyIDBytes) }

// ValidLaneID reports whether s is a well-formed lane ID.
func ValidLaneID(s string) bool { return lowerHex(s, LaneIDBytes) }

func lowerHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9') && !('a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// MaxEnvelopeBytes bounds a wrapped key.
const MaxEnvelopeBytes = 8 << 10

// KeyEnvelope is the body of GET and PUT on PersonalKeyPath: the subject's
// key, encrypted by the client to a secret the user carries. The server
// never sees the secret or the key.
type KeyEnvelope struct {
	// KeyID identifies the key; lanes and lane requests name it.
	KeyID string `json:"keyId"`
	// Envelope is the wrapped key: ASCII armor, at most MaxEnvelopeBytes.
	Envelope string `json:"envelope"`
	// UpdatedAt is set by the server.
	UpdatedAt time.Time `json:"updatedAt,omitzero"`
}

// LanesResponse is the body of GET on PersonalLanesPath.
type LanesResponse struct {
	// KeyID is the subject's current key, "" before init.
	KeyID string     `json:"keyId"`
	Lanes []LaneInfo `json:"lanes"`
	Quota Quota      `json:"quota"`
}

// LaneInfo describes one lane: sizes only, never a name or content.
type LaneInfo struct {
	Lane string `json:"lane"`
	// KeyID is the key the lane was written with.
	KeyID        string    `json:"keyId"`
	Entries      int       `json:"entries"`
	Bytes        int64     `json:"bytes"`
	Version      int64     `json:"version"`
	LastModified time.Time `json:"lastModified"`
}

// Quota is a subject's personal lane allowance and use, over all its lanes:
// live entries and the bytes of their (encrypted) values.
type Quota struct {
	MaxBytes    int64 `json:"maxBytes"`
	MaxEntries  int   `json:"maxEntries"`
	UsedBytes   int64 `json:"usedBytes"`
	UsedEntries int   `json:"usedEntries"`
}
