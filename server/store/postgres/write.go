package postgres

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/teammemd/teammemd/server/store"
)

// channelPrefix names the NOTIFY channel of committed writes; each
// notification's payload is the repo's new version, a space and its slug
// (sent after the commit, one per repo and round of the notifier: its
// newest version).
const channelPrefix = "teammemd_changes"

// channelName returns the NOTIFY channel of the store in schema: each
// schema of a database has its own, since notifications are per database.
// A schema's name may be as long as a channel's, so others than public are
// told apart by a hash.
func channelName(schema string) string {
	if schema == "public" {
		return channelPrefix
	}
	sum := sha256.Sum256([]byte(schema))
	return channelPrefix + "_" + hex.EncodeToString(sum[:8])
}

const (
	// writeEntry and deleteEntry change a key and record the change in
	// its history in one statement, so a value crosses the wire once: the
	// statement in WITH runs to completion though nothing reads it.
	writeEntry = `WITH e AS (
			INSERT INTO entries (repo_id, key, checksum, value, deleted_at) VALUES ($1, $2, $3, $4, NULL)
			ON CONFLICT (repo_id, key) DO UPDATE SET checksum = excluded.checksum, value = excluded.value, deleted_at = NULL
		)
		INSERT INTO revisions (repo_id, key, version, checksum, subject, client, time, content) VALUES ($1, $2, $5, $3, $6, $7, $8, $4)`
	deleteEntry = `WITH e AS (
			UPDATE entries SET checksum = NULL, value = NULL, deleted_at = $3 WHERE repo_id = $1 AND key = $2
		)
		INSERT INTO revisions (repo_id, key, version, checksum, subject, client, time, content) VALUES ($1, $2, $4, NULL, $5, $6, $7, NULL)`
	updateRepo   = `UPDATE repos SET version = $1, last_modified = $2, checksum = $3, compacted_through = $4 WHERE id = $5`
	dropMarkers  = `DELETE FROM entries WHERE repo_id = $1 AND key = ANY($2) AND checksum IS NULL`
	notifyChange = `SELECT pg_notify($1, $2)`
)

// queueWrite queues p's changes on b and returns the repo's next state.
func queueWrite(b *pgx.Batch, cur *repoState, p store.WritePlan, w store.Write) (*repoState, error) {
	next := &repoState{
		id:           cur.id,
		slug:         cur.slug,
		version:      cur.version + 1,
		lastModified: w.Time.UTC().Round(0),
		live:         maps.Clone(cur.live),
		deleted:      maps.Clone(cur.deleted),

		compactedThrough: cur.compactedThrough,
	}
	ns, ms := next.lastModified.UnixNano(), next.lastModified.UnixMilli()
	var added []string
	for _, k := range p.Deletes {
		added = appendNew(added, cur, k)
		b.Queue(deleteEntry, next.id, k, ms, next.version, w.Subject, w.Client, ns)
		delete(next.live, k)
		next.deleted[k] = ms
	}
	for k, u := range p.Upserts {
		added = appendNew(added, cur, k)
		b.Queue(writeEntry, next.id, k, u.Checksum, []byte(u.Value), next.version, w.Subject, w.Client, ns)
		next.live[k] = u.Checksum
		delete(next.deleted, k)
	}
	dropped := compactMarkers(b, next, w.Deletions)
	keys := nextKeys(cur.sortedKeys(), added, dropped)
	if err := next.setChecksum(keys, cur, unchangedLines(keys, p.Changed, dropped)); err != nil {
		return nil, fmt.Errorf("write %s: %w", cur.slug, err)
	}
	return next, nil
}

// appendNew appends key to added when cur holds no such key, live or
// tombstoned.
func appendNew(added []string, cur *repoState, key string) []string {
	_, live := cur.live[key]
	_, deleted := cur.deleted[key]
	if live || deleted {
		return added
	}
	return append(added, key)
}

// compactMarkers queues on b the removal of next's deletion markers over
// bound, takes them out of next, and records next's version as the repo's
// compactedThrough when it drops any. It returns the keys it dropped.
func compactMarkers(b *pgx.Batch, next *repoState, bound store.DeletionBound) []string {
	drop := bound.Compact(next.deleted, next.lastModified)
	if len(drop) == 0 {
		return nil
	}
	b.Queue(dropMarkers, next.id, drop)
	for _, k := range drop {
		delete(next.deleted, k)
	}
	next.compactedThrough = next.version
	return drop
}

// notifyPayload is the payload of the notification of a write.
func notifyPayload(version int64, slug string) string {
	return strconv.FormatInt(version, 10) + " " + slug
}

// parsePayload reads a notification's payload.
func parsePayload(payload string) (version int64, slug string, err error) {
	v, slug, ok := strings.Cut(payload, " ")
	if ok {
		version, err = strconv.ParseInt(v, 10, 64)
	}
	if !ok || err != nil || slug == "" {
		return 0, "", fmt.Errorf("malformed change notification %q", payload)
	}
	return version, slug, nil
}

// unixNano turns a stored time into a UTC time.
func unixNano(ns int64) time.Time { return time.Unix(0, ns).UTC() }
