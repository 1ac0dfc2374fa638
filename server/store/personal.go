package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"
)

// The personal lane (PROTOCOL.md section 16) keeps one subject's
// end-to-end encrypted memory in repos of its own: a lane is a repo named
// PersonalRepo(subject, lane), a name that api.ValidateSlug refuses, so no
// slug, grant pattern or listing of team repos ever names one. Beside its
// lanes a subject has one key record, the wrapped key its clients encrypt
// with, which the store keeps as given.

// personalPrefix starts the name of every lane repo.
const personalPrefix = "~personal/"

// PersonalAuditRepo is the repo of the audit record PurgePersonal writes;
// its Key is the subject purged.
const PersonalAuditRepo = "~personal"

// subjectHashHex is how many hex digits of the subject's SHA-256 name its
// lanes.
const subjectHashHex = 32

// PersonalPrefix returns the start of the repo name of every lane of
// subject.
func PersonalPrefix(subject string) string {
	sum := sha256.Sum256([]byte(subject))
	return personalPrefix + hex.EncodeToString(sum[:])[:subjectHashHex] + "/"
}

// PersonalRepo returns the repo that holds lane of subject.
func PersonalRepo(subject, lane string) string { return PersonalPrefix(subject) + lane }

// IsPersonalRepo reports whether repo is a lane of some subject, or the
// audit record of a personal purge: a name no team repo can have.
func IsPersonalRepo(repo string) bool {
	return strings.HasPrefix(repo, personalPrefix) || repo == PersonalAuditRepo
}

// LaneOf returns the lane ID of a lane repo.
func LaneOf(repo string) string {
	return repo[strings.LastIndexByte(repo, '/')+1:]
}

// ErrNoPersonalKey is returned for a subject that has no personal key.
var ErrNoPersonalKey = errors.New("personal lane not initialized")

// ErrPersonalKeyChanged is returned by Apply for a lane write that names a
// key other than its subject's current one. Nothing was written.
var ErrPersonalKeyChanged = errors.New("personal key changed")

// PersonalKey is a subject's wrapped personal key.
type PersonalKey struct {
	Subject, KeyID, Envelope string
	UpdatedAt                time.Time
}

// Quota bounds a subject's lanes together: live entries and the bytes of
// their values. A zero field is no bound.
type Quota struct {
	MaxBytes   int64
	MaxEntries int
}

// LaneWrite makes a Write one to a personal lane of Write.Subject, whose
// Repo must be PersonalRepo(Subject, lane). Apply checks, in the write's
// transaction, that KeyID is the subject's current key
// (ErrNoPersonalKey, ErrPersonalKeyChanged) and that the subject's lanes
// stay within Quota (*QuotaError); a lane's first write records KeyID as
// the lane's key.
type LaneWrite struct {
	KeyID string
	Quota Quota
}

// QuotaError is returned by Apply when a lane write would take its subject
// past its quota. Nothing was written.
type QuotaError struct {
	Quota Quota
	// Entries and Bytes are what the subject's lanes would hold.
	Entries int
	Bytes   int64
}

func (e *QuotaError) Error() string {
	return fmt.Sprintf("personal lanes would hold %d entries and %d bytes, over the quota of %d entries and %d bytes",
		e.Entries, e.Bytes, e.Quota.MaxEntries, e.Quota.MaxBytes)
}

// Usage is what lanes hold: live entries and the bytes of their values.
type Usage struct {
	Entries int
	Bytes   int64
}

// UsageDelta is how the write plan p changes a lane's live entries and the
// bytes of their values. size returns the byte size of a key's live value,
// and false for a key that is not live.
func UsageDelta(p WritePlan, size func(key string) (int64, bool, error)) (Usage, error) {
	var d Usage
	for _, k := range p.Changed {
		u, upserted := p.Upserts[k]
		if upserted {
			d.Bytes += int64(len(u.Value))
		}
		old, live, err := size(k)
		if err != nil {
			return Usage{}, err
		}
		d.Bytes -= old
		switch {
		case !live:
			d.Entries++
		case !upserted:
			d.Entries--
		}
	}
	return d, nil
}

// CheckQuota returns a *QuotaError when a write that changes a subject's
// usage from used by delta takes it past q in a way the write grows: a
// write that shrinks usage already over a lowered quota passes.
func CheckQuota(q Quota, used, delta Usage) error {
	after := Usage{Entries: used.Entries + delta.Entries, Bytes: used.Bytes + delta.Bytes}
	over := (q.MaxEntries > 0 && delta.Entries > 0 && after.Entries > q.MaxEntries) ||
		(q.MaxBytes > 0 && delta.Bytes > 0 && after.Bytes > q.MaxBytes)
	if over {
		return &QuotaError{Quota: q, Entries: after.Entries, Bytes: after.Bytes}
	}
	return nil
}

// CheckLaneWrite checks that w is a lane write its subject may make to
// its repo: a lane of its own.
func CheckLaneWrite(w Write) error {
	if !strings.HasPrefix(w.Repo, PersonalPrefix(w.Subject)) || LaneOf(w.Repo) == "" {
		return fmt.Errorf("lane write to %s is not to a lane of its subject", w.Repo)
	}
	return nil
}

// Lane describes one lane: sizes and times, never a name or content.
type Lane struct {
	Lane string
	// KeyID is the key the lane was created with.
	KeyID string
	Usage
	Version      int64
	LastModified time.Time
}

// PersonalSubject sums up one subject's personal data for its operator.
type PersonalSubject struct {
	Subject string
	// KeyID is the subject's current key, "" when it has lanes but no key.
	KeyID        string
	Lanes        int
	Usage        Usage
	LastModified time.Time
}

// PersonalPurge is what PurgePersonal dropped.
type PersonalPurge struct {
	Lanes int
	Usage Usage
	// Key reports whether a key record was dropped.
	Key bool
}

// Personal keeps the personal lanes' key records and lane records. The
// lanes' entries are written by Store.Apply with Write.Lane set and read
// by Store.Snapshot like any repo.
type Personal interface {
	// PersonalKey returns subject's key, or ErrNoPersonalKey.
	PersonalKey(ctx context.Context, subject string) (PersonalKey, error)
	// PutPersonalKey stores k as its subject's key when the current key's
	// ID is ifMatch, or, with ifMatch empty, when the subject has none;
	// else ErrPrecondition. It returns the key stored, with UpdatedAt set
	// to k's.
	PutPersonalKey(ctx context.Context, k PersonalKey, ifMatch string) (PersonalKey, error)
	// Lanes lists subject's lanes by lane ID.
	Lanes(ctx context.Context, subject string) ([]Lane, error)
	// DropLane drops one lane of subject: its entries, tombstones and
	// history. A lane never written returns ErrNotFound.
	DropLane(ctx context.Context, subject, lane string) error
	// PersonalSubjects sums up every subject with a key or a lane, by
	// subject.
	PersonalSubjects(ctx context.Context) ([]PersonalSubject, error)
	// PurgePersonal drops every lane of subject and its key, and records
	// who did it (actor, reason, at) in the audit log of purges, with
	// PersonalAuditRepo as its repo and subject as its key, in one
	// transaction. A subject with nothing to drop returns ErrNotFound.
	PurgePersonal(ctx context.Context, subject, actor, reason string, at time.Time) (PersonalPurge, error)
}
