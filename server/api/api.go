// Package api is the teammemd wire contract in code: the JSON bodies, the
// entry and repo checksums, repo slug and entry key validation, the limits and
// the error envelope that the server and the sync daemon share. It follows
// PROTOCOL.md (v1), which is wire-compatible with the Claude Code team memory
// API.
package api

import "time"

// Routes served by a team memory server.
const (
	// Path is the collection route: full pull, hash probe, push and change wait.
	Path = "/api/claude_code/team_memory"
	// HistoryPath lists the recorded revisions of one entry, or of a whole
	// repo (extension).
	HistoryPath = Path + "/history"
)

// Query parameters and values.
const (
	ParamRepo   = "repo"
	ParamView   = "view"
	ParamWait   = "wait"
	ParamKey    = "key"
	ParamCursor = "cursor"
	ParamLimit  = "limit"
	ViewHashes  = "hashes"
	// ParamContent, "false" on a history request, leaves each revision's
	// content out (extension); "true" is the default, and a page with
	// content ends at Limits.MaxHistoryPageBytes of it.
	ParamContent = "content"
	// ParamOnly, given once per key on a full pull, asks for the values of
	// those keys only (extension, PROTOCOL.md section 17); every checksum
	// and tombstone still comes. At most MaxOnlyKeys of them.
	ParamOnly = "only"
	// ParamAt, beside ParamOnly, is the repo checksum whose every entry
	// checksum and tombstone the client already holds (extension,
	// PROTOCOL.md section 17): when the repo still has it, the answer's
	// checksums and tombstones are those of the named keys alone.
	ParamAt = "at"
	// ParamDelta, "1" beside ParamWait, says the client holds every entry
	// checksum and tombstone at its If-None-Match checksum (extension,
	// PROTOCOL.md section 18): a wait the repo changed under may answer
	// with the keys that changed since alone, marked by ChangedSince.
	ParamDelta = "delta"
)

// MaxOnlyKeys is the most keys a full pull may name with ParamOnly.
const MaxOnlyKeys = 256

// Content is the "content" object of a full pull.
type Content struct {
	Entries        map[string]string `json:"entries"`
	EntryChecksums map[string]string `json:"entryChecksums"`
	DeletedEntries map[string]int64  `json:"deletedEntries"`
}

// FullResponse is the body of GET ?repo=<slug>.
type FullResponse struct {
	OrganizationID string    `json:"organizationId"`
	Repo           string    `json:"repo"`
	Version        int64     `json:"version"`
	LastModified   time.Time `json:"lastModified"`
	Checksum       string    `json:"checksum"`
	// CompactedThrough is the version of the last write that compacted
	// deletion markers (extension, PROTOCOL.md section 12); 0 when none did.
	CompactedThrough int64   `json:"compactedThrough,omitempty"`
	Content          Content `json:"content"`
}

// HashesResponse is the body of GET ?repo=<slug>&view=hashes: the same
// top-level fields as a full pull, with the entry checksums at the top level
// and no entry bodies.
type HashesResponse struct {
	OrganizationID string            `json:"organizationId"`
	Repo           string            `json:"repo"`
	Version        int64             `json:"version"`
	LastModified   time.Time         `json:"lastModified"`
	Checksum       string            `json:"checksum"`
	EntryChecksums map[string]string `json:"entryChecksums"`
	DeletedEntries map[string]int64  `json:"deletedEntries"`
	// CompactedThrough is as in FullResponse.
	CompactedThrough int64 `json:"compactedThrough,omitempty"`
	// ChangedSince (extension, PROTOCOL.md section 18), set only on the
	// answer to a change wait that asked with ParamDelta, is the repo
	// checksum the answer is relative to: EntryChecksums and
	// DeletedEntries then hold only the keys whose checksum or tombstone
	// differs from the repo at that checksum. Empty: the answer is whole.
	ChangedSince string `json:"changedSince,omitempty"`
	// Entries (extension, PROTOCOL.md section 18), only beside
	// ChangedSince, holds the value of every key EntryChecksums names,
	// when the server still had them at hand: a client takes them instead
	// of pulling those keys. Absent, the client pulls as before.
	Entries map[string]string `json:"entries,omitempty"`
	// Written (extension, PROTOCOL.md section 20), only beside
	// ChangedSince, names the revisions of the one write that took the
	// repo from ChangedSince (Written.Since) to Checksum, when this server
	// made it and still holds what it wrote.
	Written *Written `json:"written,omitempty"`
}

// PutRequest is the body of PUT ?repo=<slug>: an upsert-merge of Entries and
// soft deletion of SoftDeleteKeys. Keys absent from the body are kept.
type PutRequest struct {
	Entries        map[string]string `json:"entries"`
	SoftDeleteKeys []string          `json:"soft_delete_keys,omitempty"`
}

// PutResponse is the body of a successful PUT. Clients chain Checksum as the
// next batch's If-Match.
type PutResponse struct {
	OrganizationID string    `json:"organizationId"`
	Repo           string    `json:"repo"`
	Version        int64     `json:"version"`
	LastModified   time.Time `json:"lastModified"`
	Checksum       string    `json:"checksum"`
	// Review is set when the repo is under review and the write was held
	// as a proposal instead of stored (extension); the other fields then
	// describe the repo unchanged.
	Review *ReviewNotice `json:"review,omitempty"`
	// Written is set when the write changed the repo (extension,
	// PROTOCOL.md section 20): what its revisions in the history record.
	Written *Written `json:"written,omitempty"`
}

// Written names a write's revisions (extension): each key it changed, or
// deleted, has one at the answer's version, with the answer's
// lastModified as its time and Subject as its author.
type Written struct {
	Subject string   `json:"subject"`
	Keys    []string `json:"keys"`
	// Since, in a change wait's answer, is the repo checksum the write
	// took the repo from, at the version before the answer's.
	Since string `json:"since,omitempty"`
}

// MaxWrittenKeyBytes bounds the key names a PUT's answer lists in Written
// (before JSON escaping): past it the answer has no Written, so that it
// stays well within a client's bound on a PUT's answer (SmallBodyBytes).
const MaxWrittenKeyBytes = 8 << 10

// Revision is one recorded change of one entry (extension).
type Revision struct {
	// Key is set in the history of a whole repo.
	Key      string `json:"key,omitempty"`
	Version  int64  `json:"version"`
	Checksum string `json:"checksum,omitempty"`
	Deleted  bool   `json:"deleted,omitempty"`
	Subject  string `json:"subject"`
	// Client describes the credential and the client that wrote the
	// revision (extension, PROTOCOL.md section 10): what the server
	// verified, then what the client claimed. Absent when the server did
	// not record one.
	Client string    `json:"client,omitempty"`
	Time   time.Time `json:"time"`
	// Size is the length of the value in bytes while the server keeps it,
	// also on a page without content (extension); absent for a deletion,
	// once pruned or purged, and from a server without the extension.
	Size *int64 `json:"size,omitempty"`
	// Content is the entry's value at this revision; absent on a page asked
	// for without content, when it has been pruned by the server's
	// retention policy, or the revision is a deletion.
	Content *string `json:"content,omitempty"`
}

// HistoryResponse is the body of GET .../history?repo=<slug>&key=<key>,
// newest revision first, or without key of the whole repo's history, each
// revision naming its key. NextCursor, when set, fetches the next older
// page.
type HistoryResponse struct {
	Repo       string     `json:"repo"`
	Key        string     `json:"key"`
	Revisions  []Revision `json:"revisions"`
	NextCursor string     `json:"nextCursor,omitempty"`
}
