package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/teammemd/teammemd/server/store"
)

// personalSchema adds the personal lanes' records: each subject's wrapped
// key, and each lane's subject, key and usage, which Apply keeps in the
// write's transaction so a quota check sees every write before it.
const personalSchema = `CREATE TABLE personal_keys (
		subject    TEXT PRIMARY KEY,
		key_id     TEXT NOT NULL,
		envelope   TEXT NOT NULL,     -- the key as its clients wrapped it
		updated_at INTEGER NOT NULL   -- Unix ns
	);
	CREATE TABLE personal_lanes (
		repo_id INTEGER PRIMARY KEY REFERENCES repos(id),
		subject TEXT NOT NULL,
		key_id  TEXT NOT NULL,        -- the key the lane was created with
		entries INTEGER NOT NULL,     -- live entries
		bytes   INTEGER NOT NULL      -- bytes of their values
	);
	CREATE INDEX personal_lanes_subject ON personal_lanes (subject);`

const (
	selectPersonalKey = `SELECT key_id, envelope, updated_at FROM personal_keys WHERE subject = ?`
	selectLaneUse     = `SELECT coalesce(sum(entries), 0), coalesce(sum(bytes), 0) FROM personal_lanes WHERE subject = ?`
	selectValueLen    = `SELECT length(value) FROM entries WHERE repo_id = ? AND key = ? AND checksum IS NOT NULL`
	upsertLane        = `INSERT INTO personal_lanes (repo_id, subject, key_id, entries, bytes) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (repo_id) DO UPDATE SET entries = entries + excluded.entries, bytes = bytes + excluded.bytes`
)

// checkLane checks a lane write planned as p against its subject's key
// and quota, within the write's transaction, and returns how it changes
// the subject's usage.
func checkLane(ctx context.Context, q queryer, cur *repoState, p store.WritePlan, w store.Write) (store.Usage, error) {
	if err := store.CheckLaneWrite(w); err != nil {
		return store.Usage{}, err
	}
	var keyID, envelope string
	var updated int64
	err := q.QueryRowContext(ctx, selectPersonalKey, w.Subject).Scan(&keyID, &envelope, &updated)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return store.Usage{}, store.ErrNoPersonalKey
	case err != nil:
		return store.Usage{}, fmt.Errorf("read personal key: %w", err)
	case keyID != w.Lane.KeyID:
		return store.Usage{}, store.ErrPersonalKeyChanged
	case len(p.Changed) == 0:
		return store.Usage{}, nil
	}
	delta, err := laneDelta(ctx, q, cur, p)
	if err != nil {
		return store.Usage{}, err
	}
	var used store.Usage
	if err := q.QueryRowContext(ctx, selectLaneUse, w.Subject).Scan(&used.Entries, &used.Bytes); err != nil {
		return store.Usage{}, fmt.Errorf("read personal usage: %w", err)
	}
	return delta, store.CheckQuota(w.Lane.Quota, used, delta)
}

// laneDelta is how p changes the live entries and value bytes of cur.
func laneDelta(ctx context.Context, q queryer, cur *repoState, p store.WritePlan) (store.Usage, error) {
	return store.UsageDelta(p, func(k string) (int64, bool, error) {
		if _, live := cur.EntryChecksum(k); !live {
			return 0, false, nil
		}
		var n int64
		if err := q.QueryRowContext(ctx, selectValueLen, cur.id, k).Scan(&n); err != nil {
			return 0, false, fmt.Errorf("read entry size: %w", err)
		}
		return n, true, nil
	})
}

// recordLane adds delta to the usage of the lane next, recording the
// lane with its subject and key on its first write.
func recordLane(ctx context.Context, tx *stmtTx, next *repoState, delta store.Usage, w store.Write) error {
	if _, err := tx.ExecContext(ctx, upsertLane, next.id, w.Subject, w.Lane.KeyID, delta.Entries, delta.Bytes); err != nil {
		return fmt.Errorf("record lane usage: %w", err)
	}
	return nil
}

// PersonalKey implements store.Personal.
func (s *Store) PersonalKey(ctx context.Context, subject string) (store.PersonalKey, error) {
	return readPersonalKey(ctx, s.pool(), subject)
}

func readPersonalKey(ctx context.Context, q queryer, subject string) (store.PersonalKey, error) {
	k := store.PersonalKey{Subject: subject}
	var updated int64
	err := q.QueryRowContext(ctx, selectPersonalKey, subject).Scan(&k.KeyID, &k.Envelope, &updated)
	if errors.Is(err, sql.ErrNoRows) {
		return store.PersonalKey{}, store.ErrNoPersonalKey
	}
	if err != nil {
		return store.PersonalKey{}, fmt.Errorf("read personal key: %w", err)
	}
	k.UpdatedAt = time.Unix(0, updated).UTC()
	return k, nil
}

// PutPersonalKey implements store.Personal.
func (s *Store) PutPersonalKey(ctx context.Context, k store.PersonalKey, ifMatch string) (_ store.PersonalKey, err error) {
	defer func() { err = s.wrote(err) }()
	tx, err := s.wdb.BeginTx(ctx, nil)
	if err != nil {
		return store.PersonalKey{}, fmt.Errorf("begin key write: %w", err)
	}
	defer tx.Rollback()
	cur, err := readPersonalKey(ctx, tx, k.Subject)
	switch {
	case errors.Is(err, store.ErrNoPersonalKey):
		if ifMatch != "" {
			return store.PersonalKey{}, store.ErrPrecondition
		}
	case err != nil:
		return store.PersonalKey{}, err
	case ifMatch != cur.KeyID:
		return store.PersonalKey{}, store.ErrPrecondition
	}
	k.UpdatedAt = k.UpdatedAt.UTC().Round(0)
	_, err = tx.ExecContext(ctx, `INSERT INTO personal_keys (subject, key_id, envelope, updated_at) VALUES (?, ?, ?, ?)
		ON CONFLICT (subject) DO UPDATE SET key_id = excluded.key_id, envelope = excluded.envelope, updated_at = excluded.updated_at`,
		k.Subject, k.KeyID, k.Envelope, k.UpdatedAt.UnixNano())
	if err != nil {
		return store.PersonalKey{}, fmt.Errorf("write personal key: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return store.PersonalKey{}, fmt.Errorf("commit personal key: %w", err)
	}
	return k, nil
}

// Lanes implements store.Personal.
func (s *Store) Lanes(ctx context.Context, subject string) ([]store.Lane, error) {
	rows, err := s.pool().QueryContext(ctx, `SELECT r.slug, l.key_id, l.entries, l.bytes, r.version, r.last_modified
		FROM personal_lanes l JOIN repos r ON r.id = l.repo_id WHERE l.subject = ? ORDER BY r.slug`, subject)
	if err != nil {
		return nil, fmt.Errorf("list lanes: %w", err)
	}
	defer rows.Close()
	lanes := []store.Lane{}
	for rows.Next() {
		var l store.Lane
		var slug string
		var modified int64
		if err := rows.Scan(&slug, &l.KeyID, &l.Entries, &l.Bytes, &l.Version, &modified); err != nil {
			return nil, fmt.Errorf("list lanes: %w", err)
		}
		l.Lane, l.LastModified = store.LaneOf(slug), time.Unix(0, modified).UTC()
		lanes = append(lanes, l)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list lanes: %w", err)
	}
	return lanes, nil
}
