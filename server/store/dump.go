package store

import (
	"context"
	"time"
)

// RepoDump is everything a store keeps of one repo, to copy it from one
// backend to another exactly: versions, times, tombstones and history with
// its pruned content.
type RepoDump struct {
	Repo         string
	Version      int64
	LastModified time.Time
	Checksum     string
	// CompactedThrough is the repo's Snapshot.CompactedThrough.
	CompactedThrough int64
	// Entries are the repo's keys, live and tombstoned, in byte order.
	Entries []EntryDump
	// Revisions are every key's history, by key then version.
	Revisions []RevisionDump
}

// EntryDump is one key's current state.
type EntryDump struct {
	Key string
	// Checksum is the entry checksum, empty for a tombstone.
	Checksum string
	Value    string
	// DeletedAt is a tombstone's deletion time in Unix ms.
	DeletedAt int64
}

// RevisionDump is one recorded change of one key.
type RevisionDump struct {
	Key string
	Revision
}

// Exporter reads whole repos, every token, the audit log of purges, the
// proposals and the identity bindings out of a store, for "teammemd
// migrate-store".
type Exporter interface {
	// Repos lists every repo ever written, in byte order.
	Repos(ctx context.Context) ([]string, error)
	// ExportRepo reads one repo at one version; a repo never written
	// returns ErrNotFound.
	ExportRepo(ctx context.Context, repo string) (RepoDump, error)
	ListTokens(ctx context.Context) ([]Token, error)
	// Purges lists the audit log of purges of repo, or of every repo when
	// repo is empty, oldest first.
	Purges(ctx context.Context, repo string) ([]PurgeRecord, error)
	// ListProposals lists the proposals q selects, oldest first.
	ListProposals(ctx context.Context, q ProposalQuery) ([]Proposal, error)
	// ListIdentityBindings lists every identity binding, by subject.
	ListIdentityBindings(ctx context.Context) ([]IdentityBinding, error)
}
