// Package store defines how the teammemd server keeps team memory: the Store
// interface every backend implements, the errors it returns, and the token
// records the server authenticates against. The rules every backend
// applies live here once, those of a write (PlanWrite) and of a purge
// (PurgeTargets), and so do the parts the SQL backends share (SQLParts):
// the backends keep their SQL and their drivers' calls. The conformance
// suite in storetest holds every backend to the same behaviour.
package store

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ErrNotFound is returned for a repo that has never been written.
var ErrNotFound = errors.New("repo not found")

// ErrPrecondition is returned by Apply when Write.IfMatch differs from the
// repo's current checksum. Nothing was written.
var ErrPrecondition = errors.New("repo checksum precondition failed")

// ErrOlderSchema is returned by a store's Open, asked to keep the schema,
// for a database whose schema is older than this build's: it was left as
// it was, for the server to migrate.
var ErrOlderSchema = errors.New("left as it is")

// ErrTokenNotFound is returned for an unknown or revoked token.
var ErrTokenNotFound = errors.New("token not found")

// ErrRevisionNotFound is returned by Purge for a key that has no revisions,
// or a version that is not a revision of the key. Nothing was purged.
var ErrRevisionNotFound = errors.New("revision not found")

// ErrLiveRevision is returned by Purge for a purge that covers the live
// revision of a key, the one whose content the key holds now, without
// Purge.IncludeLive. Nothing was purged.
var ErrLiveRevision = errors.New("revision is the live content of its key")

// TooManyEntriesError is returned by Apply when the merged repo would hold
// more live entries than Write.MaxEntries. Nothing was written.
type TooManyEntriesError struct {
	Max, Received int
}

func (e *TooManyEntriesError) Error() string {
	return fmt.Sprintf("repo would hold %d entries, over the limit of %d", e.Received, e.Max)
}

// Snapshot is the state of one repo at one version.
type Snapshot struct {
	Repo         string
	Version      int64
	LastModified time.Time
	// Checksum is the repo checksum of PROTOCOL.md section 3.
	Checksum string
	// Entries maps key to value; nil when the snapshot was taken without
	// values, only the keys asked for when taken by SnapshotOf.
	Entries map[string]string
	// EntryChecksums maps every live key to its entry checksum.
	EntryChecksums map[string]string
	// Deleted maps tombstoned keys to their deletion time in Unix ms.
	Deleted map[string]int64
	// CompactedThrough is the version of the last write that compacted
	// deletion markers (see DeletionBound); 0 when none was. Every
	// deletion after it still has its marker in Deleted.
	CompactedThrough int64
}

// Write is one atomic upsert-merge with soft deletes.
type Write struct {
	Repo string
	// IfMatch, when not empty, must equal the current repo checksum (a repo
	// never written has the empty repo checksum).
	IfMatch string
	Entries map[string]string
	Deletes []string
	// Subject is the authenticated writer recorded in history.
	Subject string
	// Client describes the credential and client that made the write,
	// recorded in history beside Subject: at most api.MaxClientBytes of
	// printable text, empty when unknown. The store keeps it as given.
	Client string
	// Time is the write's time, recorded as lastModified, in history and
	// in tombstones.
	Time time.Time
	// MaxEntries caps live entries after the merge; 0 means no cap.
	MaxEntries int
	// Deletions bounds the repo's deletion markers after a write that
	// changes it; the zero bound keeps them all.
	Deletions DeletionBound
	// Lane, when set, makes this a write to a personal lane (LaneWrite).
	Lane *LaneWrite
	// Decide, when set, is the approval of the proposal this write lands:
	// a write that changes something records it, at the write's version,
	// in the write's own transaction, and lands only while the proposal is
	// pending (else Apply fails it with ErrProposalDecided and nothing
	// written). A write that changes nothing records no decision; its
	// caller records one with DecideProposal.
	Decide *Decision
}

// Result describes the repo after Apply.
type Result struct {
	Version      int64
	LastModified time.Time
	Checksum     string
	// Changed lists the keys whose state changed, sorted; empty for a write
	// that changed nothing (which does not bump the version).
	Changed []string
}

// Revision is one recorded change of one key.
type Revision struct {
	// Repo and Key name the entry changed.
	Repo, Key string
	Version   int64
	Checksum  string // empty for a deletion
	Deleted   bool
	Subject   string
	// Client is the Write's Client, empty for a revision recorded before
	// stores kept it.
	Client string
	Time   time.Time
	// Content is the value written, nil for a deletion, once pruned, or
	// when the query asked for no content.
	Content *string
	// Size is the length of the value in bytes while the store keeps it,
	// also when the query left the content out; nil for a deletion or once
	// pruned.
	Size *int64
}

// HistoryQuery selects revisions, newest first: of one key, of every key
// of a repo when Key is empty (by version, then key), or of every repo
// when Repo is empty too (by repo, then as for one repo).
type HistoryQuery struct {
	Repo, Key string
	// Before, when positive, returns only revisions with a version below it
	// (the paging cursor); with Key empty and BeforeKey set, also those of
	// version Before whose key sorts after BeforeKey. It applies within one
	// repo only.
	Before    int64
	BeforeKey string
	Limit     int
	// NoContent leaves Content nil in every revision: the backend does not
	// read the values, for a caller that wants who changed what and when.
	NoContent bool
	// Since, when not zero, leaves out the revisions written before it.
	Since time.Time
}

// Purge asks for the content of revisions of one key to be dropped for
// good, say for a secret that was stored, and recorded in the audit log of
// purges.
type Purge struct {
	Repo, Key string
	// Versions are the revisions to purge. Empty means every revision of
	// the key but the live one, and the live one too with IncludeLive.
	Versions []int64
	// IncludeLive allows purging the live revision. The entry is then
	// deleted as Apply deletes it: a tombstone, a new repo version and a
	// deletion revision with the subject PurgeSubjectPrefix+Actor at Time,
	// so clients pull the deletion.
	IncludeLive bool
	// Actor is who purges, Reason why (may be empty); both go to the audit
	// record.
	Actor, Reason string
	// Time is recorded in the audit record and as the deletion's time.
	Time time.Time
}

// PurgeSubjectPrefix starts the subject of the deletion revision a purge
// of a live revision records.
const PurgeSubjectPrefix = "purge:"

// PurgeRecord is one record of the audit log of purges. It never holds
// content.
type PurgeRecord struct {
	Time                     time.Time
	Actor, Repo, Key, Reason string
	// Versions are the revisions whose content was dropped, ascending.
	Versions []int64
	// DeletedVersion is the repo version of the deletion that purging the
	// live revision made; 0 when the entry was not deleted.
	DeletedVersion int64
}

// PurgeResult is what Purge did.
type PurgeResult struct {
	// Record is the audit record written. When no revision named held
	// content, its Versions are empty and nothing was recorded.
	Record PurgeRecord
	// Deletion is the repo after the deletion of the live entry; the zero
	// Result when the entry was not deleted.
	Deletion Result
	// Residue names copies of the purged bytes the backend could not erase
	// yet, such as a write-ahead log it could not truncate while readers
	// held it, and when they go; empty when none are left.
	Residue string
}

// Store keeps repos of entries. Implementations are safe for concurrent use
// by many goroutines and, for shared databases, many processes.
type Store interface {
	// Snapshot returns the current state of repo, with values when
	// withValues is set. A repo never written returns ErrNotFound.
	Snapshot(ctx context.Context, repo string, withValues bool) (Snapshot, error)
	// SnapshotOf returns the current state of repo as Snapshot with values
	// does, but with the values of keys alone: Entries holds each of keys
	// that is live, and is empty, not nil, when none is. Its values and
	// everything else come from one read of the repo, so each value has
	// its checksum in EntryChecksums. A repo never written returns
	// ErrNotFound.
	SnapshotOf(ctx context.Context, repo string, keys []string) (Snapshot, error)
	// Apply performs w atomically: all of it or none of it. A write that
	// changes nothing returns the current state without bumping the version.
	Apply(ctx context.Context, w Write) (Result, error)
	// History calls yield with each revision of one key, of one repo or
	// of every repo that q selects, newest first (see HistoryQuery), as it
	// reads them, and stops at the first error yield returns, which it
	// returns. A repo never written returns ErrNotFound before any call;
	// with Repo empty, no repo is no revision.
	History(ctx context.Context, q HistoryQuery, yield func(Revision) error) error
	// PruneHistory drops the content (not the record) of revisions that are
	// neither among the newest keep of their key nor newer than olderThan.
	PruneHistory(ctx context.Context, keep int, olderThan time.Time) (int64, error)
	// Purge drops the content (not the record) of revisions of one key for
	// good, and records who did it, in one transaction: all of it or none
	// of it. A repo never written returns ErrNotFound; a key without
	// revisions, or a version that is not one of its revisions,
	// ErrRevisionNotFound; the live revision without IncludeLive,
	// ErrLiveRevision. Revisions already without content (deletions,
	// pruned or purged ones) are left out of the record.
	Purge(ctx context.Context, p Purge) (PurgeResult, error)
	// Purges lists the audit log of purges of repo, or of every repo when
	// repo is empty, oldest first.
	Purges(ctx context.Context, repo string) ([]PurgeRecord, error)
	Close() error
}

// Level is the access a grant gives.
type Level string

// Access levels: LevelReview implies LevelWrite, which implies LevelRead.
// A reviewer also approves and rejects the proposals of a repo under
// review.
const (
	LevelRead   Level = "read"
	LevelWrite  Level = "write"
	LevelReview Level = "review"
)

// Grant gives Level on every repo whose slug matches Pattern (PROTOCOL.md
// section 9).
type Grant struct {
	Pattern string
	Level   Level
}

// Token is an API token record. Only the hash of the secret is stored.
type Token struct {
	ID        string
	Subject   string
	Hash      string
	Grants    []Grant
	CreatedAt time.Time
	// RevokedAt is zero while the token is valid.
	RevokedAt time.Time
}

// Tokens keeps API token records.
type Tokens interface {
	CreateToken(ctx context.Context, t Token) error
	// TokenByHash returns the valid token with this hash, or
	// ErrTokenNotFound (also for a revoked one).
	TokenByHash(ctx context.Context, hash string) (Token, error)
	ListTokens(ctx context.Context) ([]Token, error)
	// RevokeToken revokes the token with this ID, or returns
	// ErrTokenNotFound.
	RevokeToken(ctx context.Context, id string, at time.Time) error
	// TokenCounts counts the tokens the store holds and how many of them
	// are revoked.
	TokenCounts(ctx context.Context) (TokenCounts, error)
}

// TokenCounts is how many tokens a store holds and how many of them are
// revoked. A token is never deleted, its grants never change and a
// revoked token is never valid again, so a revocation always moves it: a
// server that finds it unchanged knows every token it looked up since is
// as it was (auth.TokenAuthenticator.CheckRevocations).
type TokenCounts struct {
	Tokens, Revoked int64
}
